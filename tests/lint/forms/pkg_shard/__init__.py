"""A backend package whose pool-detection helper lives in a module of its own."""
