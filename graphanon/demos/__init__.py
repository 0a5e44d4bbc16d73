"""Demo steps, one module per feature (registered in :data:`graphanon.demos.job.DEMO_STEPS`)."""
