"""THE ALGORITHM TABLE: every preset is one row; presets, config validation and docs derive from it.

A row names how rewards become advantages, which surrogate is minimised (trainer/objective.py),
how it is aggregated, the few flags the loop needs, and the settings only it reads (`Setting`:
`algo.<name>` in a config, validated against the chosen preset's row). Adding an algorithm, with
settings or without, is one function in objective.py (or advantages.py) and one row here
(docs/algorithms.md "Adding an algorithm"; tests/trainer/test_algorithm_settings.py adds one).

Signatures of the callables in a row:
- advantage (no critic): (a, rewards [n_groups, G], prompt keys, loss mask [N, R], state) -> [N] or [N, R]
- advantage (critic):    (a, scores [N], values [N, R], mask [N, R], pretrain) -> (adv [N, R], returns [N, R])
- loss: (logp [N,R], old [N,R], adv, mask [N,R], micro-batch, a) -> (loss [N,R] or [N] when seq_level,
  clip_low, clip_high)
- select: (old logp [N,R], token advantages [N,R], loss mask [N,R], a, torch.Generator) -> [N,R] bool,
  the tokens the loss treats apart (computed once per rollout batch, so micro-batches and ranks agree)
`a` is the run's AlgoConfig (trainer/config.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from trainer import advantages as adv_
from trainer import critic as critic_
from trainer import objective as obj


@dataclass(frozen=True)
class Setting:
    """An `algo.<name>` key that only the rows declaring it read (e.g. clip_cov's covariance band).

    Declared in its row, so a new algorithm's knobs need no edit of trainer/config.py: the config
    accepts `algo.<name>` only under a preset whose row declares it, validates it as `type`, and
    fills `default` when the config leaves it out.
    """

    name: str
    default: Any
    type: Any  # what pydantic validates a value as: float, int, float | None ...
    meaning: str  # one line, for error messages and docs
    # False: one of the preset's algorithm keys (config.ALGORITHM_KEYS; a file changing it must say
    # so in algo.override). True: an option any config of the preset may change freely.
    option: bool = False


@dataclass(frozen=True)
class Algorithm:
    name: str
    summary: str  # one line: `dapo train --list-presets` and docs/algorithms.md
    advantage: Callable
    loss: Callable
    agg: str  # algo.loss_agg of the preset (objective.AGG_MODES)
    preset: dict[str, Any] = field(default_factory=dict)  # the preset's values of shared algo.* keys
    critic: bool = False  # a value model (trainer/critic.py) gives per-token GAE advantages
    seq_level: bool = False  # the loss is one number per response (aggregated as a sequence mean)
    state: type | None = None  # advantage state kept across steps and checkpoints (DCPO)
    select: Callable | None = None  # per-token selection from pi_old (needs the pi_old pass)
    settings: tuple[Setting, ...] = ()  # algo.* keys only this row (and rows declaring the same) reads
    # shared algo.* keys this row's functions never read (a changed value is refused, not ignored;
    # tests/trainer/test_algorithm_settings.py checks each against the functions)
    unread: tuple[str, ...] = ()
    verl: str = ""  # the matching verl settings (docs)
    trl: str = ""  # the matching TRL settings (docs)

    @property
    def keys(self) -> tuple[str, ...]:
        """The names of this row's own settings."""
        return tuple(s.name for s in self.settings)

    def setting(self, key: str) -> Setting | None:
        """This row's declaration of `algo.<key>`, or None when the row does not read it."""
        return next((s for s in self.settings if s.name == key), None)


# ---------------------------------------------------------------- advantage adapters
def _group(a, rewards, keys, mask, state):
    return adv_.group_advantages(rewards, std_normalize=a.std_normalize).reshape(-1)


def _dcpo(a, rewards, keys, mask, state):
    return state.update_and_advantages(rewards, keys).reshape(-1)


def _rloo(a, rewards, keys, mask, state):
    return adv_.rloo_advantages(rewards).reshape(-1)


def _reinforce_pp(a, rewards, keys, mask, state):
    return adv_.batch_normalised_advantages(rewards.reshape(-1), mask)


def _maxrl(a, rewards, keys, mask, state):
    # rewards are +1 / -1 (the preset has no overlong penalty): success = (R + 1) / 2 in {0, 1}
    return adv_.maxrl_advantages((rewards + 1.0) / 2.0).reshape(-1)


def _reinforce_pp_baseline(a, rewards, keys, mask, state):
    return adv_.reinforce_pp_baseline_advantages(rewards, mask)


# ---------------------------------------------------------------- loss adapters
def _clipped(logp, old, adv, mask, mb, a):
    return obj.clipped_token_loss(
        logp, old, adv, eps_low=a.eps_low, eps_high=a.eps_high, clip_ratio_c=a.clip_ratio_c
    )


def _dcpo_loss(logp, old, adv, mask, mb, a):
    return obj.dcpo_token_loss(logp, old, adv, eps_low=a.eps_low, eps_high=a.eps_high)


def _gspo(logp, old, adv, mask, mb, a):
    return obj.gspo_seq_loss(logp, old, adv, mask, eps_low=a.eps_low, eps_high=a.eps_high)


def _cispo(logp, old, adv, mask, mb, a):
    return obj.cispo_token_loss(logp, old, adv, eps_low=a.eps_low, eps_high=a.eps_high)


def _gmpo(logp, old, adv, mask, mb, a):
    return obj.gmpo_seq_loss(logp, old, adv, mask, eps_low=a.eps_low, eps_high=a.eps_high)


def _clip_cov(logp, old, adv, mask, mb, a):
    return obj.clip_cov_token_loss(logp, old, adv, mb.selected, eps_low=a.eps_low, eps_high=a.eps_high)


def _kl_cov(logp, old, adv, mask, mb, a):
    return obj.kl_cov_token_loss(logp, old, adv, mb.selected, coef=a.cov_kl_coef)


def _sapo(logp, old, adv, mask, mb, a):
    return obj.sapo_token_loss(logp, old, adv, tau_pos=a.sapo_tau_pos, tau_neg=a.sapo_tau_neg)


def _dppo_tv(logp, old, adv, mask, mb, a):
    return obj.dppo_token_loss(logp, old, adv, divergence="tv", delta_low=a.eps_low, delta_high=a.eps_high,
                               ratio_cap=a.dppo_ratio_cap)  # fmt: skip


def _dppo_kl(logp, old, adv, mask, mb, a):
    return obj.dppo_token_loss(logp, old, adv, divergence="kl", delta_low=a.eps_low, delta_high=a.eps_high,
                               ratio_cap=a.dppo_ratio_cap)  # fmt: skip


def _select_band(old, adv, mask, a, gen):
    return obj.cov_select_band(
        old, adv, mask, ratio=a.cov_ratio, low=a.cov_low, high=a.cov_high, generator=gen
    )


def _select_top(old, adv, mask, a, gen):
    return obj.cov_select_top(old, adv, mask, ratio=a.cov_ratio)


# ---------------------------------------------------------------- shared preset values
# Every row states dynamic_sampling, overlong_filter, overlong_penalty and kl_coef itself, so no preset inherits DAPO's dynamic
# sampling or overlong filter/penalty from AlgoConfig's defaults unseen. Only dapo (its paper's
# recipe) and vapo (its paper adopts DAPO's length-aware reward) shape; the others' papers define an
# objective on the plain verifiable reward. GSPO (arXiv 2507.18071) and DCPO (arXiv 2509.02333) in
# particular specify neither the overlong filter nor the soft overlong penalty as part of the
# algorithm, so their rows leave both off (before, they took them from the defaults unnoticed).
_NO_SHAPING = {"dynamic_sampling": False, "overlong_filter": False, "overlong_penalty": False, "kl_coef": 0.0}


def _plain(clip: tuple[float, float] | None = (0.2, 0.2), **more: Any) -> dict[str, Any]:
    """The preset values most rows share: the plain verifiable reward (_NO_SHAPING) and the clip range
    (eps_low, eps_high), 0.2 each unless given (None: a loss without a clip, the keys left at their
    defaults); `more` adds the row's other shared keys (std_normalize, ...)."""
    eps = {} if clip is None else {"eps_low": clip[0], "eps_high": clip[1]}
    return {**eps, **_NO_SHAPING, **more}


def _grouped(clip: tuple[float, float] | None = (0.2, 0.2), **more: Any) -> dict[str, Any]:
    """`_plain` for the rows whose advantage is the group-normalised reward (R - mean) / std."""
    return _plain(clip, std_normalize=True, **more)


# shared keys some rows never read (Algorithm.unread)
_NO_CLIP = ("eps_low", "eps_high")  # a loss without a ratio clip
_OWN_SCALE = ("std_normalize",)  # an advantage that is not the group reward over its std


# ---------------------------------------------------------------- settings only some rows read
def _critic_settings(*, value_pretrain_steps: int, ntp_coef: float) -> tuple[Setting, ...]:
    """What the critic presets (ppo, vapo) share, at a preset's values (trainer/critic.py)."""
    return (
        Setting("gamma", 1.0, float, "GAE discount; 1.0 for an outcome reward"),
        Setting("value_clip", 0.5, float, "clip range of the value loss around the old values"),
        Setting("critic_lr", None, float | None, "the critic's learning rate; null: optim.lr", option=True),
        Setting("value_pretrain_steps", value_pretrain_steps, int,
                "first rollout steps that train only the critic, on lambda = 1 returns"),
        Setting("ntp_coef", ntp_coef, float, "weight mu of VAPO's next-token-prediction loss on correct responses"),
    )  # fmt: skip


def _cov_ratio(default: float) -> Setting:
    return Setting("cov_ratio", default, float,
                   "share of the batch's tokens selected by covariance (log pi - mean) (A - mean)")  # fmt: skip


_DPPO_SETTINGS = (
    Setting(
        "dppo_ratio_cap", 20.0, float, "cap C of the detached weight min(r, C) on a kept token's log-prob"
    ),
)


# ---------------------------------------------------------------- the table
ALGORITHMS: dict[str, Algorithm] = {
    row.name: row
    for row in [
        Algorithm(
            "grpo", "GRPO: group-normalised advantages, symmetric clip 0.2, per-response token mean",
            _group, _clipped, "seq_mean_token_mean", _grouped(),
            verl="algorithm.adv_estimator=grpo, actor.loss_agg_mode=seq-mean-token-mean (its clip_ratio_c=3 "
            "dual-clip: algo.clip_ratio_c: 3.0)",
            trl='GRPOConfig(loss_type="grpo", use_bias_correction_kl=False)',
        ),
        Algorithm(
            "dapo", "DAPO: clip-higher 0.2/0.28, dynamic sampling, token-level loss, overlong filter + penalty",
            _group, _clipped, "token_mean",
            {"std_normalize": True, "eps_low": 0.2, "eps_high": 0.28, "dynamic_sampling": True,
             "filter_metric": "acc", "overlong_filter": True, "overlong_penalty": True, "kl_coef": 0.0,
             "clip_ratio_c": 10.0},
            verl="recipe/dapo: clip_ratio_high=0.28, clip_ratio_c=10.0, loss_agg_mode=token-mean, "
            "filter_groups.enable=True, filter_groups.metric=acc",
            trl='GRPOConfig(loss_type="dapo", epsilon_high=0.28, mask_truncated_completions=True)',
        ),
        Algorithm(
            "dr_grpo", "Dr.GRPO: no std in the advantage, token sums over a constant G x Lmax",
            _group, _clipped, "token_sum_constant", _plain(std_normalize=False),
            verl="norm_adv_by_std_in_grpo=False, loss_agg_mode=seq-mean-token-sum-norm, loss_scale_factor=Lmax",
            trl='GRPOConfig(loss_type="dr_grpo", scale_rewards="none")',
        ),
        Algorithm(
            "gspo", "GSPO: one length-normalised sequence ratio per response, clipped to [1-3e-4, 1+4e-4]",
            _group, _gspo, "seq_mean_token_mean", _grouped((3e-4, 4e-4)),
            seq_level=True,
            verl="actor.policy_loss.loss_mode=gspo, clip_ratio_low=3e-4, clip_ratio_high=4e-4",
            trl='GRPOConfig(importance_sampling_level="sequence", epsilon=3e-4, epsilon_high=4e-4)',
        ),
        Algorithm(
            "dcpo", "DCPO: per-token clip bounds from the old probability, smoothed per-prompt advantages",
            _dcpo, _dcpo_loss, "seq_sum_token_mean", _plain((0.16, 0.2)),
            state=adv_.DCPOStats, unread=_OWN_SCALE, verl="none", trl="none",
        ),
        Algorithm(
            "ppo", "PPO: a critic and GAE (lambda 0.95), symmetric clip 0.2, token-level loss",
            critic_.ppo_gae, _clipped, "token_mean", _plain(),
            critic=True, unread=_OWN_SCALE,
            settings=(*_critic_settings(value_pretrain_steps=0, ntp_coef=0.0),
                      Setting("lam", 0.95, float, "GAE lambda")),
            verl="algorithm.adv_estimator=gae, critic.cliprange_value=0.5", trl="PPOTrainer",
        ),
        # The paper pretrains the critic 50 steps; the preset's 5 suit short runs.
        Algorithm(
            "vapo", "VAPO: PPO + value pretraining, length-adaptive GAE, clip-higher, NTP loss on correct answers",
            critic_.vapo_gae, _clipped, "token_mean",
            {"eps_low": 0.2, "eps_high": 0.28, "dynamic_sampling": False, "overlong_filter": False,
             "overlong_penalty": True, "kl_coef": 0.0},
            critic=True, unread=_OWN_SCALE,
            settings=(*_critic_settings(value_pretrain_steps=5, ntp_coef=0.1),
                      Setting("alpha", 0.05, float, "length-adaptive lambda_policy = 1 - 1/(alpha l)")),
            verl="none", trl="none",
        ),
        Algorithm(
            "rloo", "RLOO: leave-one-out baseline A_i = R_i - mean of the other G-1 rewards, clip 0.2",
            _rloo, _clipped, "token_mean", _plain(), unread=_OWN_SCALE,
            verl="algorithm.adv_estimator=rloo", trl="differs: RLOOTrainer's loss is per sequence",
        ),
        Algorithm(
            "reinforce_pp", "REINFORCE++: no group baseline; rewards whitened over the batch's tokens, clip 0.2",
            _reinforce_pp, _clipped, "token_mean", _plain(), unread=_OWN_SCALE,
            verl="algorithm.adv_estimator=reinforce_plus_plus", trl="none (OpenRLHF: --advantage_estimator reinforce)",
        ),
        Algorithm(
            "cispo", "CISPO: clipped, stop-gradient IS weight times log-prob on every token (none loses its gradient)",
            _group, _cispo, "token_mean", _grouped((1.0, 0.28)),
            verl="actor.policy_loss.loss_mode=cispo, clip_ratio_low=1.0, clip_ratio_high=0.28",
            trl='GRPOConfig(loss_type="cispo", epsilon_high=1.28)',
        ),
        Algorithm(
            "gmpo", "GMPO: geometric mean of token ratios clipped in log space to [-0.4, 0.4], per response",
            _group, _gmpo, "seq_mean_token_mean", _grouped((0.4, 0.4)),
            seq_level=True,
            verl="actor.policy_loss.loss_mode=geo_mean, clip_ratio_low=0.4, clip_ratio_high=0.4 (x micro-batches)",
            trl="none",
        ),
        Algorithm(
            "clip_cov", "Clip-Cov: a random few high-covariance tokens lose their gradient (entropy control)",
            _group, _clip_cov, "token_mean", _grouped(),
            select=_select_band,
            settings=(_cov_ratio(2e-4),
                      Setting("cov_low", 1.0, float, "lower end of the covariance band whose tokens may lose their gradient"),
                      Setting("cov_high", 5.0, float, "upper end of that band")),
            verl="actor.policy_loss.loss_mode=clip_cov, clip_cov_ratio=2e-4, clip_cov_lb=1, clip_cov_ub=5",
            trl="none",
        ),
        Algorithm(
            "kl_cov", "KL-Cov: the top covariance tokens get a |log-ratio| penalty, no clip (entropy control)",
            _group, _kl_cov, "token_mean", _grouped(None),
            select=_select_top, unread=_NO_CLIP,
            settings=(_cov_ratio(2e-3),
                      Setting("cov_kl_coef", 1.0, float, "weight of the |log pi - log pi_old| penalty on the selected tokens")),
            verl="actor.policy_loss.loss_mode=kl_cov, kl_cov_ratio=2e-3, ppo_kl_coef=1", trl="none",
        ),
        # ---- the 2026 family (docs/algorithms.md: one section each, after kl_cov)
        Algorithm(
            "sapo", "SAPO: a soft sigmoid gate on each token ratio instead of a clip (tau 1.0 for A>0, 1.05 for A<0)",
            _group, _sapo, "seq_mean_token_mean", _grouped(None), unread=_NO_CLIP,
            settings=(Setting("sapo_tau_pos", 1.0, float, "temperature of the soft gate (4/tau) sigmoid(tau (r - 1)) for A > 0"),
                      Setting("sapo_tau_neg", 1.05, float, "temperature of the soft gate for A <= 0")),
            verl="actor.policy_loss.loss_mode=sapo, tau_pos=1.0, tau_neg=1.05 (seq-mean-token-mean)",
            trl='GRPOConfig(loss_type="sapo", sapo_temperature_pos=1.0, sapo_temperature_neg=1.05)',
        ),
        Algorithm(
            "dppo_tv", "DPPO-TV: drop tokens whose probability moved by more than 0.15 (|p - p_old|), no ratio clip",
            _group, _dppo_tv, "token_mean", _grouped((0.15, 0.15)),
            settings=_DPPO_SETTINGS,
            verl="actor.policy_loss.loss_mode=dppo_tv, clip_ratio_low=0.15, clip_ratio_high=0.15, clip_ratio_c=20",
            trl='experimental DPPOConfig(divergence_type="binary_tv", epsilon=0.15, epsilon_high=0.15)',
        ),
        Algorithm(
            "dppo_kl", "DPPO-KL: drop tokens whose binary KL to pi_old exceeds 0.05, no ratio clip",
            _group, _dppo_kl, "token_mean", _grouped((0.05, 0.05)),
            settings=_DPPO_SETTINGS,
            verl="actor.policy_loss.loss_mode=dppo_kl, clip_ratio_low=0.05, clip_ratio_high=0.05, clip_ratio_c=20",
            trl='experimental DPPOConfig(divergence_type="binary_kl", epsilon=0.05, epsilon_high=0.05)',
        ),
        Algorithm(
            "maxrl", "MaxRL: A = (r - mean r) / mean r on 0/1 success (the gradient of log pass-rate), clip 0.2",
            _maxrl, _clipped, "token_mean", _plain(), unread=_OWN_SCALE,
            verl="none", trl="MaxRLTrainer (divides by |mean| + 1e-6)",
        ),
        Algorithm(
            "reinforce_pp_baseline", "REINFORCE++-baseline: group mean subtracted, then whitened over the batch, clip 0.2",
            _reinforce_pp_baseline, _clipped, "token_mean", _plain(), unread=_OWN_SCALE,
            verl="algorithm.adv_estimator=reinforce_plus_plus_baseline", trl="none",
        ),
    ]
}  # fmt: skip

NAMES = tuple(ALGORITHMS)  # the built-in table's presets (a row added later is read from ALGORITHMS)


def owners(key: str) -> list[str]:
    """The presets whose row declares the setting `algo.<key>` (empty: no row reads it)."""
    return [name for name, row in ALGORITHMS.items() if key in row.keys]


def unread_keys(name: str) -> dict[str, str]:
    """Shared algo.* keys preset `name`'s loss never reads, each with why (the config refuses a
    changed value; the dry run marks them)."""
    why = {"eps_low": f"{name} has no ratio clip", "eps_high": f"{name} has no ratio clip",
           "std_normalize": f"{name}'s advantage is not divided by the group std"}  # fmt: skip
    out = {k: why[k] for k in ALGORITHMS[name].unread}
    dual = dual_clip_presets()
    if name not in dual:
        out["clip_ratio_c"] = f"dual-clip applies to the clipped token loss ({', '.join(dual)}), not {name}'s"
    return out


def dual_clip_presets() -> list[str]:
    """Presets whose loss is the clipped token loss: the ones algo.clip_ratio_c (dual-clip) applies to."""
    return [name for name, row in ALGORITHMS.items() if row.loss is _clipped]


def preset(name: str) -> dict[str, Any]:
    """The partial config a preset stands for (the user's YAML is merged on top): its row's values of
    the shared keys and its own settings (those marked `option` are left to their defaults)."""
    row = ALGORITHMS[name]
    own = {s.name: s.default for s in row.settings if not s.option}
    return {"algo": {"name": name, "loss_agg": row.agg, **row.preset, **own}}


def advantages(a, groups: list, mask: torch.Tensor, state=None) -> torch.Tensor:
    """[N] (or [N, R]) advantages of a batch's groups in batch order, for algorithms without a critic."""
    rewards = torch.tensor([g.rewards for g in groups], dtype=torch.float32)  # [n_groups, G]
    return ALGORITHMS[a.name].advantage(a, rewards, [g.prompt.key for g in groups], mask, state)


def list_presets() -> str:
    """Per preset: its name and summary, then its own settings and the shared keys it never reads
    (`dapo train --list-presets`)."""
    w = max(map(len, ALGORITHMS))
    lines = []
    for name, row in ALGORITHMS.items():
        lines.append(f"{name:<{w}}  {row.summary}")
        unread = unread_keys(name)
        extra = [f"own settings: {', '.join(row.keys)}"] if row.keys else []
        extra += [f"never reads: {', '.join(unread)}"] if unread else []
        if extra:
            lines.append(f"{'':<{w}}    {'; '.join(extra)}")
    return "\n".join(lines)
