"""Correct package: star-imported helpers applied to the live pool per forward."""
