'use client';

import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal dialog named by its title (native <dialog>: focus trap and Escape for free). Escape asks
 * `onClose`; whoever holds `open` closes it. Several can sit on one page: each names itself by its own
 * title.
 */
export function Modal({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: ReactNode;
  onClose: () => void;
  children?: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      aria-labelledby={titleId}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg p-6 shadow-xl backdrop:bg-slate-900/40"
    >
      <h2 id={titleId} className="text-lg font-semibold break-words">
        {title}
      </h2>
      {children}
    </dialog>
  );
}
