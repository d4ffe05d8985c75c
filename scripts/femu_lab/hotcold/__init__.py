"""femu-lab hotcold-table: hot/cold separation against one stream in ftl-sim, with write
counts that never age and with counts that age (hot_decay)."""
