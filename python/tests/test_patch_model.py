"""tessera.nn.patch on small transformers models built from a config with random weights (nothing is
downloaded): a GPT-2-style model (Conv1D layers, GELU-tanh MLP) and a Llama-style one (gated SiLU MLP).

The check: the patched bf16 model's logits are as close to a float64 copy of the unpatched model as
the unpatched bf16 model's are, within a factor of 2 (plus 1% of the logits' largest magnitude for
the rounding noise of two bf16 pipelines):  err(patched) <= 2 * err(unpatched) + 0.01 * max|ref|.
A training step's gradients of the MLP weights are held to the same rule.  Skipped without
PyTorch, transformers or a CUDA GPU."""
import copy

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU present", allow_module_level=True)
from tessera import nn as tnn  # noqa: E402

DEV = "cuda"


def gpt2():
    cfg = transformers.GPT2Config(n_layer=2, n_embd=256, n_head=4, n_inner=1024, vocab_size=512, n_positions=128,
                                  bos_token_id=0, eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return transformers.GPT2LMHeadModel(cfg), "gelu_tanh", [f"transformer.h.{i}.mlp.c_fc" for i in range(2)]


def llama():
    cfg = transformers.LlamaConfig(num_hidden_layers=2, hidden_size=256, intermediate_size=688, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=512, max_position_embeddings=128, bos_token_id=0,
                                   eos_token_id=0, pad_token_id=0)
    return transformers.LlamaForCausalLM(cfg), "silu", [f"model.layers.{i}.mlp.gate_proj" for i in range(2)]


def mlp_weights(model):
    return {n: p for n, p in model.named_parameters() if ".mlp." in n and n.endswith("weight")}


@pytest.mark.parametrize("build", [gpt2, llama], ids=["gpt2", "llama"])
def test_patched_model_matches_unpatched(build):
    torch.manual_seed(0)
    model, act, fused = build()
    model.eval()
    ref = copy.deepcopy(model).to(DEV, torch.float64)
    base = copy.deepcopy(model).to(DEV, torch.bfloat16)
    patched = copy.deepcopy(model).to(DEV, torch.bfloat16)
    report = tnn.patch(patched)
    assert report.fused == {name: act for name in fused}
    ids = torch.randint(0, 512, (2, 96), device=DEV, generator=torch.Generator(device=DEV).manual_seed(1))

    with torch.no_grad():
        want = ref(ids).logits
        got = patched(ids).logits
        baseline = base(ids).logits
    err = (got.double() - want).abs().max().item()
    err_base = (baseline.double() - want).abs().max().item()
    scale = want.abs().max().item()
    assert err <= 2 * err_base + 0.01 * scale, (build.__name__, err, err_base, scale)

    # a training step: gradients of the MLP weights under the same rule
    for m in (ref, base, patched):
        m.train()
        m.zero_grad()
        m(ids, labels=ids).loss.backward()
    g_ref, g_base, g_got = mlp_weights(ref), mlp_weights(base), mlp_weights(patched)
    assert set(g_got) == set(g_ref) and g_got
    for name in g_ref:
        w = g_ref[name].grad
        e = (g_got[name].grad.double() - w).abs().max().item()
        e_base = (g_base[name].grad.double() - w).abs().max().item()
        assert e <= 2 * e_base + 0.01 * w.abs().max().item(), (build.__name__, name, e, e_base)
