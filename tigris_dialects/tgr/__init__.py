"""The `tgr` dialect: one op per runtime op type (`tigris_op_type_t`), plus `tgr.weight`."""
