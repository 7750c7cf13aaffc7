import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

const LINK = 'font-medium text-blue-800 underline underline-offset-2 hover:text-blue-950';

/** The document's descriptions are CommonMark: rendered to elements on the server (no raw HTML). */
export function Prose({ text, inline = false }: { text: string | undefined; inline?: boolean }) {
  if (!text) return null;
  return (
    <Markdown
      remarkPlugins={[remarkGfm]}
      components={{
        p: ({ children }) => (inline ? <span>{children}</span> : <p className="my-2 leading-relaxed">{children}</p>),
        a: ({ href, children }) => (
          <a href={href} className={LINK}>
            {children}
          </a>
        ),
        code: ({ children }) => (
          <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-900">{children}</code>
        ),
        ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-5">{children}</ul>,
        ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-5">{children}</ol>,
        h1: ({ children }) => <h3 className="mt-4 text-base font-semibold">{children}</h3>,
        h2: ({ children }) => <h3 className="mt-4 text-base font-semibold">{children}</h3>,
        h3: ({ children }) => <h4 className="mt-3 font-semibold">{children}</h4>,
      }}
    >
      {text}
    </Markdown>
  );
}
