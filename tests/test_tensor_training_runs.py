"""Whole training runs written for PyTorch, run on the Tensor shim: a small CNN (Conv2d,
BatchNorm2d, MaxPool2d, GELU, LayerNorm, label-smoothed cross_entropy, DataLoader,
AdamW, StepLR, gradient clipping, save/load) and a sequence model (Embedding with a
padding row, a two-layer bidirectional LSTM, a GRU, GroupNorm, a Normal distribution's
log_prob and KL, RMSprop with momentum) and a small causal transformer (NAdam,
OneCycleLR). The expected numbers are PyTorch 2.13's for
the same weights (float64), printed by the same code under `import torch`."""

import io

import numpy as np
import pytest

import srcgrad as torch

nn = torch.nn
F = torch.nn.functional


def _seeded(module, rs, scale):
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(torch.tensor(rs.standard_normal(tuple(p.shape)) * scale))
    return module


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 8, 3, stride=1)
        self.pool = nn.MaxPool2d(2)
        self.drop = nn.Dropout(0.0)
        self.fc = nn.Linear(8 * 2 * 2, 3)
        self.ln = nn.LayerNorm(3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.gelu(self.conv2(x))
        x = self.drop(torch.flatten(x, 1))
        return self.ln(self.fc(x))


def test_cnn_training_run_matches_pytorch():
    rs = np.random.RandomState(0)
    net = _seeded(_Net().double(), rs, 0.3)
    X = torch.tensor(rs.standard_normal((24, 1, 8, 8)))
    Y = torch.tensor(rs.randint(0, 3, 24))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=8, shuffle=False)
    opt = torch.optim.AdamW(net.parameters(), lr=0.01, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    totals, rates = [], []
    for _ in range(4):
        net.train()
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(net(xb), yb, label_smoothing=0.1)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            total += loss.item()
        sched.step()
        totals.append(total)
        rates.append(sched.get_last_lr())
    np.testing.assert_allclose(totals, [3.757901755116, 3.589914267269, 3.461834860188, 3.387337686949], rtol=1e-11)
    assert rates == [[0.01], [0.005], [0.005], [0.0025]]
    np.testing.assert_allclose(net.bn1.running_mean.numpy(), [0.2525633753, 0.2488289679, -0.0776812319, -0.0655665119],
                               atol=1e-10)
    net.eval()
    buffer = io.BytesIO()
    torch.save({"model": net.state_dict(), "opt": opt.state_dict()}, buffer)
    buffer.seek(0)
    state = torch.load(buffer)
    again = _Net().double()
    again.load_state_dict(state["model"])
    again.eval()
    with torch.no_grad():
        assert float((again(X) - net(X)).abs().max()) == 0.0
    assert sorted(state["opt"]["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]


class _Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)
        self.lstm = nn.LSTM(4, 5, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(10, 3, batch_first=True)
        self.head = nn.Linear(3, 2)
        self.norm = nn.GroupNorm(1, 3)

    def forward(self, tokens):
        h, _ = self.lstm(self.emb(tokens))
        out, _ = self.gru(h)
        mu, logstd = self.head(self.norm(out[:, -1])).unbind(-1)
        return torch.distributions.Normal(mu, logstd.exp())


def test_sequence_model_training_run_matches_pytorch():
    rs = np.random.RandomState(1)
    model = _seeded(_Sequence().double(), rs, 0.4)
    tokens = torch.tensor(rs.randint(0, 10, (6, 7)))
    y = torch.tensor(rs.standard_normal(6))
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
    losses, norms = [], []
    for _ in range(6):
        opt.zero_grad()
        d = model(tokens)
        prior = torch.distributions.Normal(0.0, 1.0)
        loss = -d.log_prob(y).mean() + 0.1 * torch.distributions.kl_divergence(d, prior).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        norms.append(model.emb.weight.grad.norm().item())
        assert model.emb.weight.grad[0].abs().sum().item() == 0.0  # the padding row gets no gradient
    np.testing.assert_allclose(losses, [4.705412788412, 1.920183638170, 1.524482900414, 1.656900924653,
                                        1.918215862049, 2.076607237426], rtol=1e-11)
    np.testing.assert_allclose(norms, [0.0515271899, 0.0011760581, 0.0019980912, 0.0015847602, 0.0020950861,
                                       0.0070488605], atol=6e-11)
    x = torch.tensor(rs.standard_normal(5), requires_grad=True)

    def f(v):
        return (torch.tanh(v) ** 3).sum() + torch.logsumexp(v, 0)

    hess = torch.autograd.functional.hessian(f, x)
    np.testing.assert_allclose(hess.diagonal().numpy(),
                               [-0.083343745, 0.3503697383, 0.8498259714, -0.4362760374, 0.1308255963], atol=1e-10)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), [-0.180369791, 0.3078366248, 0.7749352676, -0.5522958685, -0.1019877645],
                               atol=1e-10)


class _TinyLanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.out = nn.Linear(8, 12)

    def forward(self, tokens):
        n = tokens.shape[1]
        causal = torch.triu(torch.full((n, n), float("-inf"), dtype=torch.float64), diagonal=1)
        h = self.enc(self.emb(tokens), mask=causal, is_causal=True)
        return self.out(h), self.pool(h.transpose(1, 2)).squeeze(-1)


def test_transformer_training_run_matches_pytorch():
    """A causal two-layer pre-norm transformer encoder, NAdam and OneCycleLR; then the
    gradient through interpolate and max_pool1d."""
    rs = np.random.RandomState(2)
    model = _seeded(_TinyLanguageModel().double(), rs, 0.3)
    tokens = torch.tensor(rs.randint(0, 12, (4, 6)))
    opt = torch.optim.NAdam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.02, total_steps=5)
    losses, rates = [], []
    for _ in range(5):
        opt.zero_grad()
        logits, pooled = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 12), tokens[:, 1:].reshape(-1)) + 0.01 * pooled.pow(2).sum()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        rates.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(losses, [3.074241792216, 3.040145884583, 2.630939509244, 2.528243477886,
                                        2.497732787380], rtol=1e-11)
    np.testing.assert_allclose(rates, [0.0190096926, 0.0122252404, 0.0037651669, 0.0000000800, 0.0037651669],
                               atol=1e-10)
    x = torch.tensor(rs.standard_normal((2, 3, 5)), requires_grad=True)
    y = F.max_pool1d(F.interpolate(x, scale_factor=2, mode="linear", align_corners=False), 3, stride=2, padding=1)
    (g,) = torch.autograd.grad(y.pow(2).sum(), x)
    np.testing.assert_allclose(g.numpy().ravel()[:8], [0.023044058, -1.2503292788, -1.949548836, -2.2387013031,
                                                       -0.5738683017, -0.2977359221, 1.5562401106, 0.7812383617],
                               atol=1e-10)
