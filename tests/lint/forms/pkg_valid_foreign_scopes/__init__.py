"""Correct package: a mixin resolving the pool through the allocator in another module, a
lease entered once that hands out geometry only, and pool leases entered per forward."""
