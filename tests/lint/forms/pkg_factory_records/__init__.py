"""Records built by factories (classmethods, staticmethods) of record types defined in another
module of the package, kept by the backend, with their look-alikes."""
