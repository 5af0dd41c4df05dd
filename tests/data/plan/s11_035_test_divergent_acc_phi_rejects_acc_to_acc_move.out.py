error[MR-E003]: Internal error: MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move; accumulator control-flow values must be coalesced before YieldFixup.
