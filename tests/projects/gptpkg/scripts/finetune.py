def main():
    from gptpkg.model import GPT

    model = GPT.from_pretrained("gpt2")
    model.init_weights()
    return model
