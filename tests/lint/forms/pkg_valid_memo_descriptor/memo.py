class once:
    """A decorator whose object answers the first read and keeps the answer on the instance."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class live:
    """A decorator whose object runs the method on every read (a plain property)."""

    def __init__(self, fn):
        self.fn = fn

    def __get__(self, obj, owner=None):
        return self if obj is None else self.fn(obj)


class Derived:
    """A class-attribute descriptor handed the function that derives its value from the pool,
    run on every read (nothing kept)."""

    def __init__(self, derive):
        self.derive = derive

    def __get__(self, obj, owner=None):
        return self if obj is None else self.derive(obj.token_to_kv_pool)


class Kept:
    """A descriptor that keeps the first answer: handed geometry only, it keeps no pool state."""

    def __init__(self, derive):
        self.derive = derive
        self.slot = None

    def __set_name__(self, owner, name):
        self.slot = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.slot] = self.derive(obj.token_to_kv_pool)
        return value
