"""A small feed-forward classifier in numpy, trained with Adam and early stopping.

NNEval's network (Sharif et al. 2018): input features, two hidden layers of 72 ReLU units,
a softmax over two classes (machine, human), cross-entropy with L2 weight decay, Adam,
mini-batches of 75, early stopping on a validation criterion. Everything random comes from
one seeded :class:`numpy.random.Generator`, so training is deterministic for a given seed,
data and numpy build.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from capeval.types import FloatArray

__all__ = ["TrainingConfig", "TrainingHistory", "forward", "init_params", "predict_proba", "train_classifier"]

log = logging.getLogger("capeval")

Params = list[FloatArray]

#: Hidden layer sizes (Sharif et al. 2018: two layers of 72 units).
HIDDEN_UNITS = (72, 72)
#: Mini-batch size (Sharif et al. 2018).
BATCH_SIZE = 75
#: Adam step size and moment decays (Kingma and Ba 2015 defaults).
LEARNING_RATE = 1e-3
ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-8
#: L2 weight-decay coefficient on the weight matrices (not the biases); capeval's choice.
L2_PENALTY = 1e-4
#: Epoch budget and early-stopping patience (epochs without a better validation figure).
MAX_EPOCHS = 200
PATIENCE = 25


@dataclass(frozen=True)
class TrainingConfig:
    """Hyper-parameters of :func:`train_classifier` (all recorded in the model)."""

    hidden: tuple[int, ...] = HIDDEN_UNITS
    batch_size: int = BATCH_SIZE
    learning_rate: float = LEARNING_RATE
    l2: float = L2_PENALTY
    max_epochs: int = MAX_EPOCHS
    patience: int = PATIENCE
    seed: int = 0


@dataclass(frozen=True)
class TrainingHistory:
    """Per-epoch training loss and validation figure, and the epoch kept."""

    loss: tuple[float, ...]
    validation: tuple[float, ...]
    best_epoch: int
    best_validation: float


def init_params(n_inputs: int, hidden: Sequence[int], n_classes: int, rng: np.random.Generator) -> Params:
    """He-initialised weights and zero biases: ``[W1, b1, W2, b2, ..., Wout, bout]``."""
    sizes = [n_inputs, *hidden, n_classes]
    params: Params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        params.append(rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in))
        params.append(np.zeros(fan_out))
    return params


def forward(params: Params, x: FloatArray) -> tuple[FloatArray, list[FloatArray]]:
    """Logits and the hidden activations (kept for the backward pass)."""
    activations = [x]
    h = x
    for k in range(0, len(params) - 2, 2):
        h = np.maximum(h @ params[k] + params[k + 1], 0.0)
        activations.append(h)
    return h @ params[-2] + params[-1], activations


def _softmax(logits: FloatArray) -> FloatArray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)


def predict_proba(params: Params, x: FloatArray) -> FloatArray:
    """Class probabilities, shape ``(n, n_classes)``."""
    return _softmax(forward(params, x)[0])


def _gradients(params: Params, x: FloatArray, y: npt.NDArray[np.int64], l2: float) -> tuple[float, Params]:
    logits, activations = forward(params, x)
    probs = _softmax(logits)
    n = x.shape[0]
    loss = -float(np.log(np.maximum(probs[np.arange(n), y], np.finfo(float).tiny)).mean())
    loss += 0.5 * l2 * sum(float((w**2).sum()) for w in params[0::2])
    delta = probs
    delta[np.arange(n), y] -= 1.0
    delta /= n
    grads: Params = [np.empty(0)] * len(params)
    for layer in range(len(params) // 2 - 1, -1, -1):
        a = activations[layer]
        grads[2 * layer] = a.T @ delta + l2 * params[2 * layer]
        grads[2 * layer + 1] = delta.sum(axis=0)
        if layer:
            delta = (delta @ params[2 * layer].T) * (a > 0)
    return loss, grads


def train_classifier(
    x: FloatArray,
    y: npt.ArrayLike,
    validate: Callable[[Params], float],
    config: TrainingConfig = TrainingConfig(),
) -> tuple[Params, TrainingHistory]:
    """Train the classifier with Adam; keep the parameters of the best validation epoch.

    Args:
        x: ``(n, n_features)`` inputs (already normalised).
        y: ``(n,)`` class labels (0 = machine, 1 = human).
        validate: Parameters -> validation figure, higher is better (NNEval: Kendall tau
            against human ratings); called after every epoch.
        config: Hyper-parameters and seed.

    Returns:
        The best parameters and the training history.

    Raises:
        ValueError: on misaligned or non-finite input, or labels other than 0/1.
    """
    x = np.asarray(x, dtype=np.float64)
    labels = np.asarray(y, dtype=np.int64)
    if x.ndim != 2 or labels.shape != (x.shape[0],):
        raise ValueError(f"inputs of shape {x.shape} do not match {labels.shape[0]} labels")
    if not np.isfinite(x).all():
        bad = int(np.flatnonzero(~np.isfinite(x).all(axis=1))[0])
        raise ValueError(f"training row {bad} has a non-finite feature")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError("labels must be 0 (machine) or 1 (human)")
    rng = np.random.default_rng(config.seed)
    params = init_params(x.shape[1], config.hidden, 2, rng)
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2 = ADAM_BETAS
    step = 0
    best = (-np.inf, 0, [p.copy() for p in params])
    losses: list[float] = []
    figures: list[float] = []
    for epoch in range(config.max_epochs):
        order = rng.permutation(x.shape[0])
        total = 0.0
        for start in range(0, x.shape[0], config.batch_size):
            batch = order[start : start + config.batch_size]
            loss, grads = _gradients(params, x[batch], labels[batch], config.l2)
            total += loss * batch.size
            step += 1
            for k, g in enumerate(grads):
                m[k] = beta1 * m[k] + (1 - beta1) * g
                v[k] = beta2 * v[k] + (1 - beta2) * g * g
                m_hat = m[k] / (1 - beta1**step)
                v_hat = v[k] / (1 - beta2**step)
                params[k] = params[k] - config.learning_rate * m_hat / (np.sqrt(v_hat) + ADAM_EPSILON)
        losses.append(total / x.shape[0])
        figure = float(validate(params))
        figures.append(figure)
        if figure > best[0]:
            best = (figure, epoch, [p.copy() for p in params])
        log.debug("epoch %d: loss %.4f, validation %.4f", epoch, losses[-1], figure)
        if epoch - best[1] >= config.patience:
            break
    return best[2], TrainingHistory(tuple(losses), tuple(figures), best[1], float(best[0]))
