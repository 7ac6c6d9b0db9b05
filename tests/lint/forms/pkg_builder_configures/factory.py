from .backend import ConfigurableBackend


def create(model_runner):
    backend = ConfigurableBackend(model_runner)
    backend.configure(backend.token_to_kv_pool, page_size=model_runner.page_size)
    return backend
