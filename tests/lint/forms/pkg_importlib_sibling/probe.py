def layout_of(pool):
    return "dual" if type(pool).__name__.endswith("SWAKVPool") else "single"
