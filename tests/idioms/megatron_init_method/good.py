"""Megatron-style block: model-parallel linears whose init comes from `init_method=`."""
from megatron.core.tensor_parallel import ColumnParallelLinear, RowParallelLinear
from megatron.core.utils import init_method_normal, scaled_init_method_normal
import torch
import torch.nn.functional as F


class ParallelAttention(torch.nn.Module):
    def __init__(self, config, init_method, output_layer_init_method):
        super().__init__()
        h = config.hidden_size
        self.query_key_value = ColumnParallelLinear(h, 3 * h, config=config, init_method=init_method, bias=False)
        self.dense = RowParallelLinear(
            h, h, config=config, init_method=output_layer_init_method, bias=False, input_is_parallel=True
        )

    def forward(self, x):
        q, k, v = self.query_key_value(x)[0].chunk(3, dim=-1)
        return self.dense(F.scaled_dot_product_attention(q, k, v, is_causal=True))[0]


class ParallelMLP(torch.nn.Module):
    def __init__(self, config, init_method, output_layer_init_method):
        super().__init__()
        h = config.hidden_size
        self.dense_h_to_4h = ColumnParallelLinear(h, 4 * h, config=config, init_method=init_method, bias=False)
        self.dense_4h_to_h = RowParallelLinear(
            4 * h, h, config=config, init_method=output_layer_init_method, bias=False, input_is_parallel=True
        )

    def forward(self, x):
        return self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(x)[0]))[0]


class ParallelTransformerLayer(torch.nn.Module):
    def __init__(self, config, init_method, output_layer_init_method):
        super().__init__()
        self.input_layernorm = torch.nn.LayerNorm(config.hidden_size)
        self.self_attention = ParallelAttention(config, init_method, output_layer_init_method)
        self.post_attention_layernorm = torch.nn.LayerNorm(config.hidden_size)
        self.mlp = ParallelMLP(config, init_method, output_layer_init_method)

    def forward(self, x):
        x = x + self.self_attention(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class ParallelTransformer(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        init_method = init_method_normal(config.init_method_std)
        output_layer_init_method = scaled_init_method_normal(config.init_method_std, config.num_layers)
        self.layers = torch.nn.ModuleList(
            [ParallelTransformerLayer(config, init_method, output_layer_init_method) for _ in range(config.num_layers)]
        )
        self.final_layernorm = torch.nn.LayerNorm(config.hidden_size)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.final_layernorm(x)
