from .model import GPT
from . import blocks
from .config import GPTConfig as Config

__all__ = ["GPT", "Config", "blocks"]
