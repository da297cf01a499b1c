"""PyTorch's forward-mode AD material run with `import srcgrad as torch`: the
"Forward-mode Automatic Differentiation" tutorial and "Extending PyTorch" (custom
Functions with backward and jvp).

Each expected text below was printed by PyTorch 2.13 on CPU for the same program under
`import torch` (`torch.` read as `srcgrad.`); the inputs come from NumPy's seeded
generator so that both libraries see the same numbers; none of these tests needs PyTorch.
"""

from test_tensor_tutorials import expect



# Forward-mode Automatic Differentiation (dual tensors, modules, a custom Function's jvp, func.jvp);
# the shim's tangents record no graph, so the tangents are printed detached


def test_forward_mode_ad_tutorial():
    expect(
        r'''
        fwAD = torch.autograd.forward_ad
        nn = torch.nn
        rs = np.random.RandomState(0)
        def randn(*shape):
            return torch.tensor(rs.standard_normal(shape), dtype=torch.float32)
        primal = randn(10, 10)
        tangent = randn(10, 10)

        def fn(x, y):
            return x ** 2 + y ** 2

        with fwAD.dual_level():
            dual_input = fwAD.make_dual(primal, tangent)
            print(fwAD.unpack_dual(dual_input).tangent is tangent)
            dual_input_alt = fwAD.make_dual(primal, tangent.T)
            print(fwAD.unpack_dual(dual_input_alt).tangent is not tangent)
            plain_tensor = randn(10, 10)
            dual_output = fn(dual_input, plain_tensor)
            jvp = fwAD.unpack_dual(dual_output).tangent
            print(jvp[:2, :4])
        print(fwAD.unpack_dual(dual_output).tangent is None)

        model = nn.Linear(5, 5)
        with torch.no_grad():
            model.weight.copy_(randn(5, 5)); model.bias.copy_(randn(5))
        input = randn(16, 5)
        params = {name: p for name, p in model.named_parameters()}
        tangents = {name: randn(*p.shape) for name, p in params.items()}
        with fwAD.dual_level():
            for name, p in params.items():
                delattr(model, name)
                setattr(model, name, fwAD.make_dual(p, tangents[name]))
            out = model(input)
            jvp = fwAD.unpack_dual(out).tangent
        print(jvp[:3].detach())  # the shim's tangents record no graph

        from_func = torch.func.functional_call
        model = nn.Linear(5, 5)
        dual_params = {}
        with fwAD.dual_level():
            for name, p in params.items():
                dual_params[name] = fwAD.make_dual(p, tangents[name])
            out = from_func(model, dual_params, input)
            jvp2 = fwAD.unpack_dual(out).tangent
        print(torch.allclose(jvp, jvp2))

        class Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, foo):
                result = torch.exp(foo)
                ctx.result = result
                return result

            @staticmethod
            def jvp(ctx, gI):
                gO = gI * ctx.result
                del ctx.result
                return gO

        fn = Fn.apply
        primal = torch.tensor(rs.standard_normal((10, 10)), dtype=torch.double, requires_grad=True)
        tangent = randn(10, 10)
        with fwAD.dual_level():
            dual_input = fwAD.make_dual(primal, tangent)
            dual_output = fn(dual_input)
            jvp = fwAD.unpack_dual(dual_output).tangent
        print(jvp[0, :4].detach(), jvp.dtype)
        print(torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True, check_backward_ad=False,
                                       check_undefined_grad=False, check_batched_grad=False))

        primal0, tangent0, primal1, tangent1 = randn(10, 10), randn(10, 10), randn(10, 10), randn(10, 10)
        def fn(x, y):
            return x ** 2 + y ** 2
        primal_out, tangent_out = torch.func.jvp(fn, (primal0, primal1), (tangent0, tangent1))
        print(primal_out[0, :3], tangent_out[0, :3])
        import functools
        primal, tangent, y = randn(10, 10), randn(10, 10), randn(10, 10)
        new_fn = functools.partial(fn, y=y)
        primal_out, tangent_out = torch.func.jvp(new_fn, (primal,), (tangent,))
        print(tangent_out[1, :3])

        model = nn.Linear(5, 5)
        input = randn(16, 5)
        tangents = tuple([randn(*p.shape) for p in model.parameters()])
        params = dict(model.named_parameters())
        def func(params, input):
            return torch.func.functional_call(model, params, input)
        def func_params_only(params):
            return func(params, input)
        model_output, jvp_out = torch.func.jvp(func_params_only, (params,), (dict(zip(params, tangents)),))
        print(jvp_out[:2].detach())
        ''',
        r'''
        True
        True
        tensor([[ 6.6440, -1.0786, -2.4869,  4.3446],
                [ 0.5380,  2.6353, -1.3109,  0.4648]])
        True
        tensor([[-6.2878, -5.3702, -1.4126, -2.4127,  4.3405],
                [ 0.9284,  2.4636, -1.6985, -1.1964,  0.8740],
                [-1.8616, -1.3165,  2.0824,  2.9300, -0.2838]])
        True
        tensor([ 0.1438, -0.3791, -0.2221,  1.8439], dtype=srcgrad.float64) srcgrad.float64
        True
        tensor([0.0656, 2.0071, 2.0158]) tensor([ 0.3882, -4.0785,  4.5666])
        tensor([ 0.0480,  2.7358, -0.0645])
        tensor([[ 2.7749, -2.5284,  1.3103,  0.3532,  1.6656],
                [-0.8009, -5.1973,  0.9552,  3.9698, -0.1404]])
        ''',
    )


# Extending torch.autograd: LinearFunction, MulConstant, a Linear module, jvp with save_for_forward,
# mark_dirty and mark_non_differentiable, and PyTorch's errors for a wrong jvp


def test_extending_autograd_notes():
    expect(
        r'''
        Function = torch.autograd.Function
        nn = torch.nn
        fwAD = torch.autograd.forward_ad
        gradcheck = torch.autograd.gradcheck
        rs = np.random.RandomState(6)
        def randn(*shape, **kw):
            return torch.tensor(rs.standard_normal(shape), **kw)

        class LinearFunction(Function):
            @staticmethod
            def forward(ctx, input, weight, bias=None):
                ctx.save_for_backward(input, weight, bias)
                output = input.mm(weight.t())
                if bias is not None:
                    output += bias.unsqueeze(0).expand_as(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                input, weight, bias = ctx.saved_tensors
                grad_input = grad_weight = grad_bias = None
                if ctx.needs_input_grad[0]:
                    grad_input = grad_output.mm(weight)
                if ctx.needs_input_grad[1]:
                    grad_weight = grad_output.t().mm(input)
                if bias is not None and ctx.needs_input_grad[2]:
                    grad_bias = grad_output.sum(0)
                return grad_input, grad_weight, grad_bias

        linear = LinearFunction.apply

        class LinearFunction2(Function):
            @staticmethod
            def forward(input, weight, bias):
                output = input.mm(weight.t())
                if bias is not None:
                    output += bias.unsqueeze(0).expand_as(output)
                return output

            @staticmethod
            def setup_context(ctx, inputs, output):
                input, weight, bias = inputs
                ctx.save_for_backward(input, weight, bias)

            @staticmethod
            def backward(ctx, grad_output):
                input, weight, bias = ctx.saved_tensors
                grad_input = grad_weight = grad_bias = None
                if ctx.needs_input_grad[0]:
                    grad_input = grad_output.mm(weight)
                if ctx.needs_input_grad[1]:
                    grad_weight = grad_output.t().mm(input)
                if bias is not None and ctx.needs_input_grad[2]:
                    grad_bias = grad_output.sum(0)
                return grad_input, grad_weight, grad_bias

        class MulConstant(Function):
            @staticmethod
            def forward(ctx, tensor, constant):
                ctx.constant = constant
                return tensor * constant

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output * ctx.constant, None

        class MulConstantLazy(Function):
            @staticmethod
            def forward(ctx, tensor, constant):
                ctx.set_materialize_grads(False)
                ctx.constant = constant
                return tensor * constant

            @staticmethod
            def backward(ctx, grad_output):
                if grad_output is None:
                    return None, None
                return grad_output * ctx.constant, None

        input = (randn(6, 5, dtype=torch.double, requires_grad=True), randn(4, 5, dtype=torch.double, requires_grad=True))
        test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
        print(test)
        print(gradcheck(LinearFunction2.apply, input + (randn(4, dtype=torch.double, requires_grad=True),)))
        out = linear(*input)
        print(out.grad_fn.name(), out[0, :3])
        out.sum().backward()
        print(input[1].grad[0])
        x = randn(3, requires_grad=True)
        y = MulConstant.apply(x, 2.5)
        y.backward(torch.ones(3))
        print(y, x.grad)
        z = MulConstantLazy.apply(x, 3.0)
        z.sum().backward()
        print(x.grad)
        print(torch.autograd.gradgradcheck(MulConstant.apply, (randn(3, dtype=torch.double, requires_grad=True), 2.0)))

        class Linear(nn.Module):
            def __init__(self, input_features, output_features, bias=True):
                super(Linear, self).__init__()
                self.input_features = input_features
                self.output_features = output_features
                self.weight = nn.Parameter(torch.empty(output_features, input_features))
                if bias:
                    self.bias = nn.Parameter(torch.empty(output_features))
                else:
                    self.register_parameter('bias', None)
                self.weight.data.uniform_(-0.1, 0.1)
                if self.bias is not None:
                    self.bias.data.uniform_(-0.1, 0.1)

            def forward(self, input):
                return LinearFunction.apply(input, self.weight, self.bias)

            def extra_repr(self):
                return 'input_features={}, output_features={}, bias={}'.format(
                    self.input_features, self.output_features, self.bias is not None)

        m = Linear(5, 3)
        print(m, [p.shape for p in m.parameters()])
        with torch.no_grad():
            m.weight.copy_(randn(3, 5)); m.bias.copy_(randn(3))
        out = m(randn(2, 5, dtype=torch.float32))
        out.sum().backward()
        print(out, m.weight.grad.sum(), m.bias.grad)
        print(Linear(4, 2, bias=False))

        # forward mode AD: jvp with save_for_forward, mark_dirty and mark_non_differentiable
        class MyMul(Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_forward(a, b)
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def jvp(ctx, a_t, b_t):
                a, b = ctx.saved_tensors
                return a_t * b + a * b_t

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, g * a

        a, b = randn(3, dtype=torch.double), randn(3, dtype=torch.double)
        ta, tb = randn(3, dtype=torch.double), randn(3, dtype=torch.double)
        with fwAD.dual_level():
            out = MyMul.apply(fwAD.make_dual(a, ta), fwAD.make_dual(b, tb))
            print(fwAD.unpack_dual(out))
            out = MyMul.apply(fwAD.make_dual(a, ta), b)
            print(fwAD.unpack_dual(out).tangent)
        print(gradcheck(MyMul.apply, (a.requires_grad_(), b.requires_grad_()), check_forward_ad=True))
        a.requires_grad_(False); b.requires_grad_(False)

        class Scale_(Function):
            @staticmethod
            def forward(ctx, x, k):
                x.mul_(k)
                ctx.mark_dirty(x)
                ctx.k = k
                return x

            @staticmethod
            def jvp(ctx, x_t, _):
                return x_t.mul_(ctx.k)

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None

        class Bad_(Scale_):
            @staticmethod
            def jvp(ctx, x_t, _):
                return x_t * ctx.k

        with fwAD.dual_level():
            d = fwAD.make_dual(a.clone(), ta.clone())
            r = Scale_.apply(d, 2.0)
            print(r is d, fwAD.unpack_dual(r).tangent, fwAD.unpack_dual(d).tangent)
            try:
                Bad_.apply(fwAD.make_dual(a.clone(), ta.clone()), 2.0)
            except RuntimeError as e:
                print(e)
        leaf = a.clone().requires_grad_()
        r = Scale_.apply(leaf.clone(), 3.0)
        r.sum().backward()
        print(r.grad_fn.name(), leaf.grad)

        class SortWithIndex(Function):
            @staticmethod
            def forward(x):
                values, index = x.sort()
                return values, index

            @staticmethod
            def setup_context(ctx, inputs, output):
                values, index = output
                ctx.mark_non_differentiable(index)
                ctx.save_for_forward(index)
                ctx.save_for_backward(index)

            @staticmethod
            def jvp(ctx, x_t):
                index, = ctx.saved_tensors
                return x_t[index], None

            @staticmethod
            def backward(ctx, g, _):
                index, = ctx.saved_tensors
                return torch.zeros_like(g).index_copy(0, index, g)

        with fwAD.dual_level():
            values, index = SortWithIndex.apply(fwAD.make_dual(a, ta))
            print(fwAD.unpack_dual(values), fwAD.unpack_dual(index).tangent, index.requires_grad)
        print(torch.func.jvp(lambda x: SortWithIndex.apply(x)[0], (a,), (ta,)))
        print(torch.func.jacfwd(lambda x: SortWithIndex.apply(x)[0])(a) if False else "jacfwd needs a vmap rule")
        try:
            torch.func.jacfwd(lambda x: SortWithIndex.apply(x)[0])(a)
        except RuntimeError as e:
            print(e)

        class NoJvp(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class Wrong(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def jvp(ctx, t):
                return t * 2

        class WrongShape(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def jvp(ctx, t):
                return t[:2]

        class NonDiff(Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.mark_non_differentiable(out)
                return out

            @staticmethod
            def jvp(ctx, t):
                return t * 2

        for F in (NoJvp, Wrong, WrongShape, NonDiff):
            with fwAD.dual_level():
                try:
                    print(F.__name__, F.apply(fwAD.make_dual(a, ta)))
                except (RuntimeError, NotImplementedError) as e:
                    print(F.__name__, type(e).__name__, e)
        ''',
        r'''
        True
        True
        LinearFunctionBackward tensor([-1.8432, -1.8883, -1.5246], dtype=srcgrad.float64,
               grad_fn=<SliceBackward0>)
        tensor([ 2.5403,  5.9111, -2.4311,  1.9675, -0.6360], dtype=srcgrad.float64)
        tensor([-1.1786,  5.8415,  3.7570], dtype=srcgrad.float64,
               grad_fn=<MulConstantBackward>) tensor([2.5000, 2.5000, 2.5000], dtype=srcgrad.float64)
        tensor([5.5000, 5.5000, 5.5000], dtype=srcgrad.float64)
        True
        Linear(input_features=5, output_features=3, bias=True) [srcgrad.Size([3, 5]), srcgrad.Size([3])]
        tensor([[-0.7673, -2.9395, -0.1014],
                [-0.3755, -2.2879,  0.1299]], grad_fn=<LinearFunctionBackward>) tensor(-2.5210) tensor([2., 2., 2.])
        Linear(input_features=4, output_features=2, bias=False)
        UnpackedDualTensor(primal=tensor([-0.5175,  0.3531,  0.0588], dtype=srcgrad.float64), tangent=tensor([ 0.3264, -0.3541, -0.1578], dtype=srcgrad.float64))
        tensor([-1.1274, -0.3314, -0.0022], dtype=srcgrad.float64)
        True
        True tensor([ 3.8095,  1.3883, -0.0392], dtype=srcgrad.float64) tensor([ 3.8095,  1.3883, -0.0392], dtype=srcgrad.float64)
        An inplace custom Function is not modifying the forward mode gradients inplace. If the forward is modifying an input inplace, then the jvp function must modify the corresponding gradient inplace.
        Scale_Backward tensor([3., 3., 3.], dtype=srcgrad.float64)
        UnpackedDualTensor(primal=tensor([-0.7396,  0.5229,  0.8743], dtype=srcgrad.float64), tangent=tensor([ 0.6942, -0.0196,  1.9047], dtype=srcgrad.float64)) None False
        (tensor([-0.7396,  0.5229,  0.8743], dtype=srcgrad.float64), tensor([ 0.6942, -0.0196,  1.9047], dtype=srcgrad.float64))
        jacfwd needs a vmap rule
        You tried to vmap over SortWithIndex, but it does not have vmap support. Please override and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        NoJvp NotImplementedError You must implement the jvp function for custom autograd.Function to use it with forward mode AD.
        Wrong RuntimeError Function's jvp returned an invalid number of forward gradients (expected 2 but got 1)
        WrongShape RuntimeError Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size [3] while the given forward gradient is of size [2].
        NonDiff RuntimeError Function's jvp returned a gradient at position 0, but  the corresponding forward output is not a differentiable Tensor.You should return None at that position instead.
        ''',
    )
