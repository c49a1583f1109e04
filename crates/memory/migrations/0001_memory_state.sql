-- The memory pipeline's state. Times are unix seconds (UTC). See docs/design/memory.md, "State".

-- One row per session file the pipeline has seen.
CREATE TABLE threads (
    id TEXT PRIMARY KEY NOT NULL,
    rollout_path TEXT NOT NULL,
    -- Where the session came from: cli, vscode, exec, mcp, claude_code, subagent, ...
    -- NULL when the header could not be read (phase 1 then records why).
    source TEXT,
    cwd TEXT,
    git_branch TEXT,
    updated_at INTEGER NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX threads_updated_at ON threads (updated_at DESC);

-- What phase 1 extracted from a thread.
CREATE TABLE stage1_outputs (
    thread_id TEXT PRIMARY KEY NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    source_updated_at INTEGER NOT NULL,
    raw_memory TEXT NOT NULL,
    rollout_summary TEXT NOT NULL,
    rollout_slug TEXT,
    generated_at INTEGER NOT NULL,
    -- Global, strictly increasing: the consolidation watermark counts in it.
    seq INTEGER NOT NULL
);
CREATE INDEX stage1_outputs_seq ON stage1_outputs (seq DESC);

-- Stage-1 jobs (kind memory_stage1, key = thread id) and the one global phase-2 job
-- (kind memory_consolidate_global, key global).
CREATE TABLE jobs (
    kind TEXT NOT NULL,
    job_key TEXT NOT NULL,
    -- pending, running, done, error
    status TEXT NOT NULL,
    worker_id TEXT,
    ownership_token TEXT,
    started_at INTEGER,
    finished_at INTEGER,
    lease_until INTEGER,
    retry_at INTEGER,
    retry_remaining INTEGER NOT NULL,
    last_error TEXT,
    input_watermark INTEGER,
    last_success_watermark INTEGER,
    -- How many times the job finished successfully (each success is a committed result).
    completions INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, job_key)
);
CREATE INDEX jobs_kind_status ON jobs (kind, status, retry_at, lease_until);
