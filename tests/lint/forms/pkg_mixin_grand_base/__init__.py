"""A mixin of one module reading a flag a base of another module stores, the two met through a
same-module intermediate class (Heir(Mixin, Mid), Mid(Base)): the heir holds the base's flag."""
