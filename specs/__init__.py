"""The specs, shipped as the package contracts.specs: one TOML file per stage and schema.json (data;
contracts.spec.loader reads them)."""
