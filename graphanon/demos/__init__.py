"""Demo steps, one module per feature (registered in :data:`graphanon.demo.DEMO_STEPS`)."""
