"""inference_mode, is_inference_mode_enabled and Tensor.is_inference, as PyTorch 2.13's:
tensors made inside inference_mode() are inference tensors (made by a creation function,
an operation or a view), those made outside or inside a nested inference_mode(False) are
not; the mode nests with no_grad and enable_grad and works as a decorator."""

import srcgrad as torch


def test_tensors_made_in_inference_mode_are_inference_tensors():
    assert not torch.is_inference_mode_enabled() and not torch.ones(1).is_inference()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        made, product, view = torch.ones(2), torch.ones(2) * 2, torch.arange(3.0)[1:]
        assert made.is_inference() and product.is_inference() and view.is_inference() and torch.is_inference(product)
        with torch.inference_mode(False):
            assert not torch.is_inference_mode_enabled() and not torch.ones(1).is_inference()
            assert torch.is_grad_enabled()
        with torch.no_grad():
            assert torch.is_inference_mode_enabled() and torch.ones(1).is_inference()
        with torch.enable_grad():
            assert torch.is_inference_mode_enabled() and torch.is_grad_enabled()
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
    assert made.is_inference() and not (made * 1).is_inference()
    with torch.no_grad():
        assert not torch.ones(1).is_inference() and not torch.is_inference_mode_enabled()


def test_inference_mode_as_decorator_and_after_an_exception():
    @torch.inference_mode()
    def made():
        return torch.is_inference_mode_enabled(), torch.zeros(1)

    enabled, t = made()
    assert enabled and t.is_inference() and not torch.is_inference_mode_enabled()
    try:
        with torch.inference_mode():
            raise ValueError
    except ValueError:
        pass
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
