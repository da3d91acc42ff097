"""Durable background ingest jobs (``POST /v1/documents``, ``DELETE``): :class:`IngestJobs`
runs, persists (:class:`JobStore`: Redis or files) and recovers them after a restart."""

from gateway.ingest.job import IngestJob, new_job_id
from gateway.ingest.job_store import FileJobStore, JobStore, fsync_dir, fsync_file
from gateway.ingest.jobs import IngestJobs

__all__ = ["FileJobStore", "IngestJob", "IngestJobs", "JobStore", "fsync_dir", "fsync_file",
           "new_job_id"]
