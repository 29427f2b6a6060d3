from .factory import speech_model


def speech_base(vocab=32):
    return speech_model(width=768, heads=12, hidden=3072, depth=12, encoder_norm_before=False, vocab=vocab)


def speech_large(vocab=32):
    return speech_model(width=1024, heads=16, hidden=4096, depth=24, encoder_norm_before=True, vocab=vocab)
