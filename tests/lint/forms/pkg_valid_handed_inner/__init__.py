"""A hybrid backend handing its inner backends, defined in another module, geometry only."""
