"""A mixin keeping an unresolved pool under the resolver's name, and leases handing out pool
state, each defined in a module apart from the backend that uses them."""
