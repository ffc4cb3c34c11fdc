-- Paperclip's tables as a Leasekeeper database source reads them: the older, company-scoped shape, in
-- which every environment belongs to one company (`environments.company_id`) and a lease row cannot
-- outlive its environment (`environment_id` NOT NULL, ON DELETE CASCADE).
--
-- Written from the Drizzle schema and migrations of paperclipai/paperclip:
--   packages/db/src/schema/environment_leases.ts  at 02846c88a899c33fb8a84dc4890c72b71fb8aba8
--   packages/db/src/schema/heartbeat_runs.ts      at 01110e8a5688541c86e05c8dede3f03b6f2d1f35
--   packages/db/src/schema/companies.ts           at 05872674fdd222db988f2833ce4d44a9e8c26aab
--   the migration that creates `environments` and `environment_leases` (same columns and keys)
-- Only the columns and constraints that matter to a reader are kept; `heartbeat_runs.agent_id` keeps its
-- NOT NULL but not its key to `agents`, which is not recreated here.

CREATE TABLE "companies" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "name" text NOT NULL,
  "status" text DEFAULT 'active' NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

-- A table the source must never read; a seeded value here is a canary.
CREATE TABLE "company_secrets" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "name" text NOT NULL,
  "value" text NOT NULL
);

CREATE TABLE "heartbeat_runs" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL REFERENCES "companies"("id"),
  "agent_id" uuid NOT NULL,
  "status" text DEFAULT 'queued' NOT NULL,
  "started_at" timestamp with time zone,
  "finished_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "environments" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL,
  "name" text NOT NULL,
  "description" text,
  "driver" text DEFAULT 'local' NOT NULL,
  "status" text DEFAULT 'active' NOT NULL,
  "config" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "metadata" jsonb,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "environment_leases" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL,
  "environment_id" uuid NOT NULL,
  "execution_workspace_id" uuid,
  "issue_id" uuid,
  "heartbeat_run_id" uuid,
  "status" text DEFAULT 'active' NOT NULL,
  "lease_policy" text DEFAULT 'ephemeral' NOT NULL,
  "provider" text,
  "provider_lease_id" text,
  "acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
  "expires_at" timestamp with time zone,
  "released_at" timestamp with time zone,
  "failure_reason" text,
  "cleanup_status" text,
  "metadata" jsonb,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE "environments" ADD CONSTRAINT "environments_company_id_companies_id_fk"
  FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "environment_leases" ADD CONSTRAINT "environment_leases_company_id_companies_id_fk"
  FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "environment_leases" ADD CONSTRAINT "environment_leases_environment_id_environments_id_fk"
  FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "environment_leases" ADD CONSTRAINT "environment_leases_heartbeat_run_id_heartbeat_runs_id_fk"
  FOREIGN KEY ("heartbeat_run_id") REFERENCES "public"."heartbeat_runs"("id") ON DELETE set null ON UPDATE no action;

CREATE INDEX "environments_company_status_idx" ON "environments" USING btree ("company_id", "status");
CREATE INDEX "environment_leases_company_environment_status_idx"
  ON "environment_leases" USING btree ("company_id", "environment_id", "status");
CREATE INDEX "environment_leases_heartbeat_run_idx" ON "environment_leases" USING btree ("heartbeat_run_id");
CREATE INDEX "environment_leases_provider_lease_idx" ON "environment_leases" USING btree ("provider_lease_id");

-- The tables that name what holds a lease: never required, so a test drops them to stand for a database or
-- role without them. Only the columns that matter to a reader are kept, as Paperclip's migrations create
-- them (roshangautam/paperclip at 9af1e75629cb263af5ff0cb8d7439ceed0b61928):
--   agents               0000_mature_masked_marvel.sql (`name` NOT NULL); a run names its agent in
--                        heartbeat_runs.agent_id (packages/db/src/schema/heartbeat_runs.ts)
--   issues               0000_mature_masked_marvel.sql (`title` NOT NULL), `identifier` from
--                        0004_issue_identifiers.sql
--   execution_workspaces 0035_marvelous_satana.sql (`name` NOT NULL; `project_id` keeps its NOT NULL but
--                        not its key to `projects`, which is not recreated here)
CREATE TABLE "agents" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL REFERENCES "companies"("id"),
  "name" text NOT NULL,
  "role" text DEFAULT 'general' NOT NULL,
  "title" text,
  "status" text DEFAULT 'idle' NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "issues" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL REFERENCES "companies"("id"),
  "title" text NOT NULL,
  "description" text,
  "status" text DEFAULT 'backlog' NOT NULL,
  "identifier" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "execution_workspaces" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "company_id" uuid NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
  "project_id" uuid NOT NULL,
  "mode" text NOT NULL,
  "strategy_type" text NOT NULL,
  "name" text NOT NULL,
  "status" text DEFAULT 'active' NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

-- Paperclip's installed plugins, as packages/db/src/migrations/0029_plugin_tables.sql creates the table
-- (roshangautam/paperclip at 9af1e75629cb263af5ff0cb8d7439ceed0b61928; the same columns in
-- packages/db/src/schema/plugins.ts of paperclipai/paperclip). It came long before environments did
-- (0065_environments.sql), so every shape has it; a test drops it to stand for a Paperclip without it.
-- The source reads only plugin_key, version and status; manifest_json and package_path are never read.
CREATE TABLE "plugins" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "plugin_key" text NOT NULL,
  "package_name" text NOT NULL,
  "package_path" text,
  "version" text NOT NULL,
  "api_version" integer DEFAULT 1 NOT NULL,
  "categories" jsonb DEFAULT '[]'::jsonb NOT NULL,
  "manifest_json" jsonb NOT NULL,
  "status" text DEFAULT 'installed' NOT NULL,
  "install_order" integer,
  "last_error" text,
  "installed_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE UNIQUE INDEX "plugins_plugin_key_idx" ON "plugins" USING btree ("plugin_key");
CREATE INDEX "plugins_status_idx" ON "plugins" USING btree ("status");
