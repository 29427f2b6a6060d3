# Call model._init_weights before training; init_weights() also works.
HELP = "see _init_weights in gptpkg.model"
