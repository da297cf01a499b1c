"""A custom Function's jvp under forward AD and func.jvp/jacfwd, and its checks under the
func transforms (setup_context, vmap rules: generate_vmap_rule, a vmap staticmethod),
printed as PyTorch 2.13 prints them: tangents given to jvp (zeros for an input without
one), saved_tensors in jvp, the count/shape/non-differentiable/in-place/view errors.

Each expected text below was printed by PyTorch 2.13 on CPU for the same program under
`import torch` (`torch.` read as `srcgrad.`); the inputs come from NumPy's seeded
generator so that both libraries see the same numbers; none of these tests needs PyTorch.
"""

from test_tensor_tutorials import expect



# forward AD through custom Functions: values, tangents and errors


def test_custom_function_jvp_cases():
    expect(
        r'''
        fwAD = torch.autograd.forward_ad
        def tryit(name, f):
            try:
                r = f(); print(name, "->", r)
            except Exception as e:
                print(name, "!!", type(e).__name__, e)

        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_forward(x)
                ctx.save_for_backward(x)
                ctx.k = k
                return x * x * k
            @staticmethod
            def jvp(ctx, tx, tk):
                print("  jvp got", tx, tk, "saved", ctx.saved_tensors, "grad", torch.is_grad_enabled())
                x, = ctx.saved_tensors
                return 2 * x * tx * ctx.k
            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g * ctx.k, None

        class NoJvp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def backward(ctx, g): return g * 2

        x = torch.tensor([1., 2., 3.])
        with fwAD.dual_level():
            d = fwAD.make_dual(x, torch.ones(3))
            tryit("sq", lambda: fwAD.unpack_dual(Sq.apply(d, 3.0)))
            tryit("nojvp", lambda: NoJvp.apply(d))
            # two inputs one without tangent
        class Mul(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_forward(x, y)
                return x * y
            @staticmethod
            def jvp(ctx, tx, ty):
                print("  jvp got", tx, ty)
                x, y = ctx.saved_tensors
                return (tx * y if tx is not None else 0) + (x * ty if ty is not None else 0)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, torch.ones(3))
            tryit("mul partial", lambda: fwAD.unpack_dual(Mul.apply(d, torch.tensor([4., 5., 6.]))))
        class BadN(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2, x * 3
            @staticmethod
            def jvp(ctx, tx): return tx * 2
        class BadShape(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def jvp(ctx, tx): return tx.sum()
        class BadTuple(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def jvp(ctx, tx): return tx, tx
        class RetNone(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def jvp(ctx, tx): return None
        class BadDtype(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def jvp(ctx, tx): return tx.double()
        class NoSaveFwd(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x); return x * 2
            @staticmethod
            def jvp(ctx, tx): print("  saved", ctx.saved_tensors); return tx * 2
        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2, x * 3
            @staticmethod
            def jvp(ctx, tx): return tx * 2, tx * 3
        class TwoNonDiff(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a = x * 2; b = (x > 1)
                c = x*5
                ctx.mark_non_differentiable(c)
                return a, b, c
            @staticmethod
            def jvp(ctx, tx): print("  nd jvp"); return tx * 2, None, tx*5
        class Dirty(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2); ctx.mark_dirty(x); return x
            @staticmethod
            def jvp(ctx, tx): return tx.mul_(2)
        class DirtyNotInplace(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2); ctx.mark_dirty(x); return x
            @staticmethod
            def jvp(ctx, tx): return tx * 2
        class Identity(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x
            @staticmethod
            def jvp(ctx, tx): return tx
        class ViewOut(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x.view(3)
            @staticmethod
            def jvp(ctx, tx): return tx.view(3)
        class SetupCtx(torch.autograd.Function):
            @staticmethod
            def forward(x): return x.sin()
            @staticmethod
            def setup_context(ctx, inputs, output):
                x, = inputs; ctx.save_for_forward(x)
            @staticmethod
            def jvp(ctx, tx):
                x, = ctx.saved_tensors; return x.cos() * tx
        for C in [BadN, BadShape, BadTuple, BadDtype, NoSaveFwd, Two, TwoNonDiff, Dirty, DirtyNotInplace, Identity, ViewOut, SetupCtx]:
            with fwAD.dual_level():
                d = fwAD.make_dual(x.clone(), torch.ones(3))
                def f():
                    r = C.apply(d)
                    if isinstance(r, tuple): return [fwAD.unpack_dual(t) for t in r]
                    return fwAD.unpack_dual(r), r is d
                tryit(C.__name__, f)
        # no dual input -> jvp not called
        tryit("nodual", lambda: Sq.apply(x, 2.0))
        with fwAD.dual_level():
            tryit("nodual-in-level", lambda: fwAD.unpack_dual(Sq.apply(x, 2.0)))
            d = fwAD.make_dual(x.clone(), torch.ones(3))
            tryit("nojvp-nondual", lambda: fwAD.unpack_dual(NoJvp.apply(x)))
        tf = torch.func
        tryit("func.jvp", lambda: tf.jvp(lambda a: Sq.apply(a, 2.0), (x,), (torch.ones(3),)))
        tryit("func.jvp nojvp", lambda: tf.jvp(lambda a: NoJvp.apply(a), (x,), (torch.ones(3),)))
        tryit("jacfwd", lambda: tf.jacfwd(lambda a: SetupCtx.apply(a))(x))
        tryit("jacfwd ctxstyle", lambda: tf.jacfwd(lambda a: Sq.apply(a, 2.0))(x))
        ''',
        r'''
          jvp got tensor([1., 1., 1.]) None saved (tensor([1., 2., 3.]),) grad True
        sq -> UnpackedDualTensor(primal=tensor([ 3., 12., 27.]), tangent=tensor([ 6., 12., 18.]))
        nojvp !! NotImplementedError You must implement the jvp function for custom autograd.Function to use it with forward mode AD.
          jvp got tensor([1., 1., 1.]) tensor([0., 0., 0.])
        mul partial -> UnpackedDualTensor(primal=tensor([ 4., 10., 18.]), tangent=tensor([4., 5., 6.]))
        BadN !! RuntimeError Function's jvp returned an invalid number of forward gradients (expected 2 but got 1)
        BadShape !! RuntimeError Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size [3] while the given forward gradient is of size [].
        BadTuple !! RuntimeError Function's jvp returned an invalid number of forward gradients (expected 1 but got 2)
        BadDtype -> (UnpackedDualTensor(primal=tensor([2., 4., 6.]), tangent=tensor([1., 1., 1.], dtype=srcgrad.float64)), False)
          saved ()
        NoSaveFwd -> (UnpackedDualTensor(primal=tensor([2., 4., 6.]), tangent=tensor([2., 2., 2.])), False)
        Two -> [UnpackedDualTensor(primal=tensor([2., 4., 6.]), tangent=tensor([2., 2., 2.])), UnpackedDualTensor(primal=tensor([3., 6., 9.]), tangent=tensor([3., 3., 3.]))]
          nd jvp
        TwoNonDiff !! RuntimeError Function's jvp returned a gradient at position 2, but  the corresponding forward output is not a differentiable Tensor.You should return None at that position instead.
        Dirty -> (UnpackedDualTensor(primal=tensor([2., 4., 6.]), tangent=tensor([2., 2., 2.])), True)
        DirtyNotInplace !! RuntimeError An inplace custom Function is not modifying the forward mode gradients inplace. If the forward is modifying an input inplace, then the jvp function must modify the corresponding gradient inplace.
        Identity !! RuntimeError A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a view.
        ViewOut -> (UnpackedDualTensor(primal=tensor([1., 2., 3.]), tangent=tensor([1., 1., 1.])), False)
        SetupCtx -> (UnpackedDualTensor(primal=tensor([0.8415, 0.9093, 0.1411]), tangent=tensor([ 0.5403, -0.4161, -0.9900])), False)
        nodual -> tensor([ 2.,  8., 18.])
        nodual-in-level -> UnpackedDualTensor(primal=tensor([ 2.,  8., 18.]), tangent=None)
        nojvp-nondual -> UnpackedDualTensor(primal=tensor([2., 4., 6.]), tangent=None)
        func.jvp !! RuntimeError In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        func.jvp nojvp !! RuntimeError In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        jacfwd !! RuntimeError You tried to vmap over SetupCtx, but it does not have vmap support. Please override and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        jacfwd ctxstyle !! RuntimeError In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        ''',
    )


# vmap, jvp, grad, jacfwd, jacrev, hessian of custom Functions: rules and errors


def test_custom_function_under_the_func_transforms():
    expect(
        r'''
        tf = torch.func
        def tryit(name, f):
            try:
                r = f(); print(name, "->", r)
            except Exception as e:
                print(name, "!!", type(e).__name__, e)
        class S(torch.autograd.Function):
            @staticmethod
            def forward(x): return x.sin()
            @staticmethod
            def setup_context(ctx, inputs, output):
                x, = inputs; ctx.save_for_forward(x); ctx.save_for_backward(x)
            @staticmethod
            def jvp(ctx, tx):
                x, = ctx.saved_tensors; return x.cos() * tx
            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors; return x.cos() * g
        class G(S):
            generate_vmap_rule = True
        class V(S):
            @staticmethod
            def vmap(info, in_dims, x):
                print("  vmap info", info.batch_size, info.randomness, in_dims)
                return S.apply(x) * 1, in_dims[0]
        class NoJ(torch.autograd.Function):
            @staticmethod
            def forward(x): return x.sin()
            @staticmethod
            def setup_context(ctx, inputs, output):
                x, = inputs; ctx.save_for_backward(x)
            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors; return x.cos() * g
        x = torch.tensor([1., 2., 3.])
        X = torch.arange(6.).reshape(2, 3)
        tryit("jvp S", lambda: tf.jvp(S.apply, (x,), (torch.ones(3),)))
        tryit("jvp NoJ", lambda: tf.jvp(NoJ.apply, (x,), (torch.ones(3),)))
        tryit("grad S", lambda: tf.grad(lambda a: S.apply(a).sum())(x))
        tryit("vmap S", lambda: tf.vmap(S.apply)(X))
        tryit("vmap G", lambda: tf.vmap(G.apply)(X))
        tryit("vmap V", lambda: tf.vmap(V.apply)(X))
        tryit("vmap V in_dims1", lambda: tf.vmap(V.apply, in_dims=1)(X))
        tryit("jacfwd G", lambda: tf.jacfwd(G.apply)(x))
        tryit("jacrev S", lambda: tf.jacrev(S.apply)(x))
        tryit("jacrev G", lambda: tf.jacrev(G.apply)(x))
        class Both(G):
            @staticmethod
            def vmap(info, in_dims, x): return x, 0
        tryit("both", lambda: tf.vmap(Both.apply)(X))
        class BadV(S):
            @staticmethod
            def vmap(info, in_dims, x): return S.apply(x)
        class BadV2(S):
            @staticmethod
            def vmap(info, in_dims, x): return S.apply(x), (0,)
        tryit("badv2", lambda: tf.vmap(BadV2.apply)(X))
        # ctx-style in vmap
        class C(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def backward(ctx, g): return g*2
        tryit("vmap ctxstyle", lambda: tf.vmap(C.apply)(X))
        tryit("grad ctxstyle", lambda: tf.grad(lambda a: C.apply(a).sum())(x))
        tryit("vjp ctxstyle", lambda: tf.vjp(C.apply, x)[0])
        tryit("hessian G", lambda: tf.hessian(lambda a: G.apply(a).sum())(x))
        tryit("autograd.functional.jacobian ctx", lambda: torch.autograd.functional.jacobian(C.apply, x))
        ''',
        r'''
        jvp S -> (tensor([0.8415, 0.9093, 0.1411]), tensor([ 0.5403, -0.4161, -0.9900]))
        jvp NoJ !! NotImplementedError You must implement the jvp function for custom autograd.Function to use it with forward mode AD.
        grad S -> tensor([ 0.5403, -0.4161, -0.9900])
        vmap S !! RuntimeError You tried to vmap over S, but it does not have vmap support. Please override and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        vmap G -> tensor([[ 0.0000,  0.8415,  0.9093],
                [ 0.1411, -0.7568, -0.9589]])
          vmap info 2 error (0,)
        vmap V -> tensor([[ 0.0000,  0.8415,  0.9093],
                [ 0.1411, -0.7568, -0.9589]])
          vmap info 3 error (1,)
        vmap V in_dims1 -> tensor([[ 0.0000,  0.1411],
                [ 0.8415, -0.7568],
                [ 0.9093, -0.9589]])
        jacfwd G -> tensor([[ 0.5403,  0.0000,  0.0000],
                [-0.0000, -0.4161, -0.0000],
                [-0.0000, -0.0000, -0.9900]])
        jacrev S -> tensor([[ 0.5403, -0.0000, -0.0000],
                [ 0.0000, -0.4161, -0.0000],
                [ 0.0000, -0.0000, -0.9900]])
        jacrev G -> tensor([[ 0.5403, -0.0000, -0.0000],
                [ 0.0000, -0.4161, -0.0000],
                [ 0.0000, -0.0000, -0.9900]])
        both !! RuntimeError You tried to vmap over Both, but it has both generate_vmap_rule=True and an overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden vmap staticmethod to avoid ambiguity. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        badv2 !! RuntimeError The autograd.Function's vmap staticmethod returned an incompatible (output, out_dims) tuple. Expected out_dims=(0,) to be compatible with the structure of `output`. out_dims has structure TreeSpec(tuple, None, [*]) but output has structure *. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        vmap ctxstyle !! RuntimeError In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        grad ctxstyle !! RuntimeError In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        vjp ctxstyle !! RuntimeError In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        hessian G -> tensor([[-0.8415, -0.0000, -0.0000],
                [-0.0000, -0.9093, -0.0000],
                [-0.0000, -0.0000, -0.1411]])
        autograd.functional.jacobian ctx -> tensor([[2., 0., 0.],
                [0., 2., 0.],
                [0., 0., 2.]])
        ''',
    )
