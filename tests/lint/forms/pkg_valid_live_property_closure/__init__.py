"""A closure kept in __init__ reading a live property of a base of another module (the main
pool of the active pool, read again each call): live, as reading self.token_to_kv_pool is."""
