"""Correct gates, the opt-in KVP004 on the mirror itself: a base keeps a mirror of its
allocator-resolved pool; heirs in other modules gate on the inherited mirror (trtllm_mha on
flashinfer's flag, 0.5.18+)."""
