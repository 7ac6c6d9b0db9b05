"""Hook objects a backend keeps: one keeps what is registered, one only counts it."""


class StepHooks:
    def __init__(self):
        self._fns = {}
        self._last = {}

    def register(self, name, fn):
        self._fns.setdefault(name, []).append(fn)

    def remember(self, name, value):
        self._last[name] = value

    def fire(self, name, *args):
        for fn in self._fns.get(name, ()):
            fn(*args)


class Tally:
    def __init__(self):
        self.count = 0

    def register(self, name, fn):
        self.count += 1
        return fn
