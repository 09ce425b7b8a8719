"""The built-in functions of the DSL, one module per family (re-exported by ``vc``)."""
