CREATE TABLE "app_callback_ids" (
	"device_id" uuid NOT NULL,
	"callback_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_callback_ids_device_id_callback_id_pk" PRIMARY KEY("device_id","callback_id")
);
--> statement-breakpoint
ALTER TABLE "app_callback_ids" ADD CONSTRAINT "app_callback_ids_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;