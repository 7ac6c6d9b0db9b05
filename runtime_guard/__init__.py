"""Runtime guard for SGLang's SWA KV pools: pool identity and page-bounds checks before kernel launch."""
