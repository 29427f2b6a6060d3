"""The feed-forward kinds a block may pick, by name: a table, and no class of its own."""

from tabled.mlps.kinds import GeluMlp, GluMlp

MLP_KINDS = {"gelu": GeluMlp, "glu": GluMlp}
