from . import probes as impl  # a module another module reaches through this one (shim.impl)
