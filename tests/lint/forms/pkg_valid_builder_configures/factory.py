from .backend import ConfigurableBackend


def create(model_runner):
    backend = ConfigurableBackend(model_runner)
    backend.configure(page_size=model_runner.page_size)
    return backend
