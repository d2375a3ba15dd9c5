"""capeval.meta_eval."""
