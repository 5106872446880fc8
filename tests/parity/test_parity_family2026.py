"""The 2026 family against the peers' own code: verl's core_algos.py (installed without its dependencies)
and TRL's GRPOTrainer helpers, on random ragged batches at the settings docs/algorithms.md names.

Each test compares loss and gradient with respect to the log-probs (or the advantages) computed by our
trainer/ code path with the peer's function on the same tensors. Skipped when the peer is not
installed (`make test-parity` installs both).
"""

from __future__ import annotations

import os

import pytest
import torch

from trainer import objective as obj
from trainer.advantages import reinforce_pp_baseline_advantages
from trainer.algorithms import ALGORITHMS
from trainer.batch import Batch
from trainer.config import build_config

pytestmark = pytest.mark.parity


def _peer_fixture(request, name: str, module: str):
    """tests/parity/conftest.py's `verl` / `trl` fixture when it is there (it puts verl's import-time
    dependencies on the path and fails under PARITY_STRICT); else a plain import, skipped if absent."""
    try:
        return request.getfixturevalue(name)
    except pytest.FixtureLookupError:
        return pytest.importorskip(
            module, reason=f"{name} does not import here (make test-parity installs it)"
        )


@pytest.fixture
def ca(request):
    """verl's trainer/ppo/core_algos.py."""
    core = _peer_fixture(request, "verl", "verl.trainer.ppo.core_algos")
    return core if hasattr(core, "compute_policy_loss_sapo") else core.trainer.ppo.core_algos


@pytest.fixture
def trl_peer(request):
    return _peer_fixture(request, "trl", "trl")


def _actor_config(**kw):
    from verl.workers.config import ActorConfig

    return ActorConfig(
        strategy="fsdp", rollout_n=1, ppo_micro_batch_size_per_gpu=1, use_dynamic_bsz=False, **kw
    )


def _ragged(seed: int, B: int = 12, T: int = 9, spread: float = 0.5, filtered: bool = True):
    """Random log-probs of a ragged batch (lengths 1..T; row 3 overlong-filtered, an all-zero mask row, when
    `filtered`), pi_old nearby, +-1 advantages in groups of 4. Whether a filtered row counts among the
    responses of a sequence mean is the normaliser's question (tests/parity's other files); the loss tests
    here use `filtered=False`, where every count agrees."""
    g = torch.Generator().manual_seed(seed)
    old = -torch.rand(B, T, generator=g) * 3 - 0.02
    logp = (old + spread * torch.randn(B, T, generator=g)).clamp(max=-1e-3)
    lengths = torch.randint(1, T + 1, (B,), generator=g)
    mask = (torch.arange(T)[None] < lengths[:, None]).float()
    if filtered:
        mask[3] = 0
    rewards = torch.randint(0, 2, (B // 4, 4), generator=g).float() * 2 - 1
    rewards[0] = 1.0  # an all-equal group
    adv = (rewards - rewards.mean(1, keepdim=True)).reshape(-1)
    return logp, old, mask, adv, rewards


def _batch(logp, old, mask, adv) -> Batch:
    B, T = logp.shape
    z = torch.zeros(B, T, dtype=torch.long)
    return Batch(ids=z, attn=z + 1, pos=z, resp=z, mask=mask, loss_mask=mask, engine_logp=old,
                 group=torch.arange(B) // 4, truncated=torch.zeros(B, dtype=torch.bool),
                 acc=torch.zeros(B, dtype=torch.bool), adv=adv, old=old)  # fmt: skip


def _ours(preset: str, logp, old, mask, adv, entropy=None, **algo):
    """Our loss through objective.policy_loss (the loop's path) and its gradient w.r.t. logp."""
    cfg = build_config({"algo": algo}, preset=preset)
    lp = logp.clone().requires_grad_()
    mb = _batch(lp, old, mask, adv)
    norm = obj.normalisers(cfg.algo, mb, mb, 1, G=4, max_len=logp.shape[1])
    loss, _ = obj.policy_loss(cfg.algo, ALGORITHMS[preset], lp, mb, norm, entropy=entropy)
    (g,) = torch.autograd.grad(loss, lp)
    return loss.detach(), g


MICRO = (torch.arange(0, 5), torch.arange(5, 12))  # two uneven micro-batches of a 12-row mini-batch


def _verl(fn, logp, old, mask, adv, mode, micro: bool = False, **config):
    """verl's loss and gradient: the whole batch at once, or (`micro`) summed over MICRO with the
    mini-batch's counts in `global_batch_info`, as verl's engine worker passes them (dp_size 1)."""
    lp = logp.clone().requires_grad_()
    advantages = adv[:, None].expand_as(lp)
    if not micro:
        loss, _ = fn(old_log_prob=old, log_prob=lp, advantages=advantages, response_mask=mask, loss_agg_mode=mode,
                     config=_actor_config(**config))  # fmt: skip
    else:
        info = {"dp_size": 1, "batch_num_tokens": mask.sum(), "global_batch_size": len(mask)}
        cfg = _actor_config(global_batch_info=info, **config)
        loss = sum(fn(old_log_prob=old[r], log_prob=lp[r], advantages=advantages[r], response_mask=mask[r],
                      loss_agg_mode=mode, config=cfg)[0] for r in MICRO)  # fmt: skip
    (g,) = torch.autograd.grad(loss, lp)
    return loss.detach(), g


# ---------------------------------------------------------------- verl
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reinforce_pp_baseline_matches_verl(seed, ca):
    _, _, mask, _, rewards = _ragged(seed)
    rewards[1] = 0.7  # non-dyadic all-equal group: ours is exactly 0 before whitening, verl's ~1e-8
    mask[3] = 1.0  # verl whitens over the response mask it is given; every row here has tokens
    B, T = mask.shape
    scores = rewards.reshape(-1)
    token_rewards = torch.zeros(B, T)
    last = mask.sum(1).long() - 1
    token_rewards[torch.arange(B), last] = scores  # verl sums the token rewards into the score
    index = [f"uid{i // 4}" for i in range(B)]
    want, _ = ca.compute_reinforce_plus_plus_baseline_outcome_advantage(token_rewards, mask, index)
    got = reinforce_pp_baseline_advantages(rewards, mask)
    torch.testing.assert_close(got * mask, want * mask, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("micro", [False, True], ids=["batch", "micro-batches"])
@pytest.mark.parametrize("seed", [0, 1])
def test_sapo_matches_verl(seed, micro, ca):
    logp, old, mask, adv, _ = _ragged(seed, filtered=False)
    want, g_want = _verl(ca.compute_policy_loss_sapo, logp, old, mask, adv, "seq-mean-token-mean", micro,
                         tau_pos=1.0, tau_neg=1.05)  # fmt: skip
    got, g_got = _ours("sapo", logp, old, mask, adv)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_got, g_want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("micro", [False, True], ids=["batch", "micro-batches"])
@pytest.mark.parametrize(("preset", "delta"), [("dppo_tv", 0.15), ("dppo_kl", 0.05)])
@pytest.mark.parametrize("seed", [0, 1])
def test_dppo_matches_verl(preset, delta, seed, micro, ca):
    logp, old, mask, adv, _ = _ragged(seed, spread=0.8, filtered=False)
    fn = ca.compute_policy_loss_dppo_tv if preset == "dppo_tv" else ca.compute_policy_loss_dppo_kl
    want, g_want = _verl(fn, logp, old, mask, adv, "token-mean", micro, clip_ratio=delta, clip_ratio_low=delta,
                         clip_ratio_high=delta, clip_ratio_c=20.0)  # fmt: skip
    got, g_got = _ours(preset, logp, old, mask, adv)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_got, g_want, rtol=1e-5, atol=1e-7)
    # the masks bind on this batch (else the test would not show they agree)
    _, cl, ch = obj.dppo_token_loss(logp, old, adv[:, None].expand_as(logp), divergence=preset[-2:],
                                    delta_low=delta, delta_high=delta)  # fmt: skip
    assert ((cl | ch) & (mask > 0)).any()


def test_entropy_bonus_matches_verl_convention(ca):
    """verl: policy_loss -= entropy_coeff * agg_loss(entropy, mask, loss_agg_mode); ours with algo.entropy_coef."""
    logp, old, mask, adv, _ = _ragged(3, spread=0.8)
    ent = torch.rand(logp.shape, generator=torch.Generator().manual_seed(9)) * 2
    pg, g_pg = _verl(ca.compute_policy_loss_dppo_tv, logp, old, mask, adv, "token-mean", clip_ratio=0.15,
                     clip_ratio_low=0.15, clip_ratio_high=0.15, clip_ratio_c=20.0)  # fmt: skip
    want = pg - 0.01 * ca.agg_loss(ent, mask, "token-mean")
    got, g_got = _ours("dppo_tv", logp, old, mask, adv, entropy=ent, entropy_coef=0.01)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_got, g_pg, rtol=1e-5, atol=1e-7)  # the bonus adds no logp gradient here


@pytest.mark.parametrize(
    ("ours", "theirs"), [("token_sum", "token-sum"), ("seq_mean_token_sum", "seq-mean-token-sum")]
)
def test_new_aggregation_modes_match_verl_agg_loss(ours, theirs, ca):
    logp, _, mask, _, _ = _ragged(4)
    loss = logp * 1.7 - 0.3
    torch.testing.assert_close(obj.aggregate(loss, mask, ours), ca.agg_loss(loss, mask, theirs))
    # several micro-batches with the mini-batch's counts (verl: global_batch_size, dp_size 1) add up alike
    seqs = float((mask.sum(1) > 0).sum())
    micro = (slice(0, 5), slice(5, None))
    ours_sum = sum(obj.aggregate(loss[r], mask[r], ours, num_seqs=seqs) for r in micro)
    theirs_sum = sum(ca.agg_loss(loss[r], mask[r], theirs, global_batch_size=seqs) for r in micro)
    torch.testing.assert_close(ours_sum, theirs_sum)
    torch.testing.assert_close(ours_sum, obj.aggregate(loss, mask, ours))


# ---------------------------------------------------------------- TRL
class _TRLSelf:
    """The attributes GRPOTrainer._compute_loss reads, so TRL's own loss code runs on our tensors (no model)."""

    def __init__(self, trainer_cls, logp, *, loss_type, beta=0.0, off_policy=None, bias_kl=False):
        from collections import defaultdict
        from types import SimpleNamespace

        ident = lambda x, **_: x  # noqa: E731  (one process: gather / reduce are the identity)
        self.accelerator = SimpleNamespace(gather=ident, gather_for_metrics=ident, reduce=ident, num_processes=1,
                                           sync_gradients=True)  # fmt: skip
        self.model = SimpleNamespace(training=True)
        self.args = SimpleNamespace(delta=None, use_bias_correction_kl=bias_kl, sapo_temperature_pos=1.0,
                                    sapo_temperature_neg=1.05, steps_per_generation=1)  # fmt: skip
        self.loss_type, self.beta, self.off_policy_mask_threshold = loss_type, beta, off_policy
        self.epsilon_low = self.epsilon_high = 0.2
        self.importance_sampling_level, self.top_entropy_quantile = "token", 1.0
        self.use_vllm = self.vllm_importance_sampling_correction = self.aux_loss_enabled = False
        self._entropy_bonus_enabled, self.current_gradient_accumulation_steps = False, 1
        self._metrics = defaultdict(lambda: defaultdict(list))
        self.get_off_policy_mask = trainer_cls.get_off_policy_mask
        self._logp = logp

    def _get_per_token_logps_and_entropies(self, *args, **kw):
        return self._logp, torch.zeros_like(self._logp), None


def _trl_loss(trl, logp, old, mask, adv, *, engine=None, ref=None, **kw):
    lp = logp.clone().requires_grad_()
    fake = _TRLSelf(trl.GRPOTrainer, lp, **kw)
    B, T = logp.shape
    inputs = {"prompt_ids": torch.zeros(B, 1, dtype=torch.long), "prompt_mask": torch.ones(B, 1, dtype=torch.long),
              "completion_ids": torch.zeros(B, T, dtype=torch.long), "completion_mask": mask, "advantages": adv,
              "old_per_token_logps": old}  # fmt: skip
    if engine is not None:
        inputs["sampling_per_token_logps"] = engine
    if ref is not None:
        inputs["ref_per_token_logps"] = ref
    try:
        loss = trl.GRPOTrainer._compute_loss(fake, None, inputs)
    except (AttributeError, KeyError, ValueError) as e:  # another TRL version reads other attributes
        if os.environ.get("PARITY_STRICT") == "1":
            raise
        pytest.skip(f"this TRL's GRPOTrainer._compute_loss does not run on the harness: {e!r}")
    (g,) = torch.autograd.grad(loss, lp)
    return loss.detach(), g


def _full_rows(seed, spread=0.5):
    """A batch without filtered rows (whether TRL's and our sequence means count them is tested elsewhere)."""
    logp, old, mask, adv, _ = _ragged(seed, spread=spread, filtered=False)
    return logp, old, mask, adv


@pytest.mark.parametrize("seed", [0, 1])
def test_sapo_matches_trl(seed, trl_peer):
    logp, old, mask, adv = _full_rows(seed)
    want, g_want = _trl_loss(trl_peer, logp, old, mask, adv, loss_type="sapo")
    got, g_got = _ours("sapo", logp, old, mask, adv)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_got, g_want, rtol=1e-5, atol=1e-7)


def test_off_policy_mask_matches_trl(trl_peer):
    """OPSM: TRL's off_policy_mask_threshold with the sampler's logprobs = our algo.off_policy_mask with engine_logp."""
    logp, old, mask, adv = _full_rows(6)
    engine = logp + torch.linspace(-0.2, 0.4, logp.shape[0])[:, None]  # mean KL of row i = its offset
    want, g_want = _trl_loss(trl_peer, logp, old, mask, adv, engine=engine, loss_type="sapo", off_policy=0.05)
    cfg = build_config({"algo": {"off_policy_mask": 0.05}}, preset="sapo")
    lp = logp.clone().requires_grad_()
    mb = _batch(lp, old, mask, adv).with_(engine_logp=engine)
    norm = obj.normalisers(cfg.algo, mb, mb, 1, G=4, max_len=logp.shape[1])
    got, st = obj.policy_loss(cfg.algo, ALGORITHMS["sapo"], lp, mb, norm)
    (g_got,) = torch.autograd.grad(got, lp)
    torch.testing.assert_close(got.detach(), want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_got, g_want, rtol=1e-5, atol=1e-7)
    assert st["opsm_masked"] > 0  # some negative, far off-policy responses were dropped
    assert not (g_got == 0).all()


def test_unbiased_kl_matches_trl_bias_correction(trl_peer):
    """algo.kl_unbiased = TRL's use_bias_correction_kl (k3 times pi_theta / pi_old), beta 0.1."""
    logp, old, mask, adv = _full_rows(7, spread=0.3)
    ref = old - 0.2 * torch.rand(logp.shape, generator=torch.Generator().manual_seed(1))
    want, g_want = _trl_loss(
        trl_peer, logp, old, mask, adv, ref=ref, loss_type="sapo", beta=0.1, bias_kl=True
    )
    cfg = build_config({"algo": {"kl_coef": 0.1, "kl_unbiased": True}}, preset="sapo")
    lp = logp.clone().requires_grad_()
    mb = _batch(lp, old, mask, adv).with_(ref=ref)
    norm = obj.normalisers(cfg.algo, mb, mb, 1, G=4, max_len=logp.shape[1])
    got, _ = obj.policy_loss(cfg.algo, ALGORITHMS["sapo"], lp, mb, norm)
    (g_got,) = torch.autograd.grad(got, lp)
    torch.testing.assert_close(got.detach(), want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_got, g_want, rtol=1e-5, atol=1e-7)
