"""A backend whose helper objects and inner backend are defined in other modules."""
