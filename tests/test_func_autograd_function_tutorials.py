"""PyTorch's torch.func material run with `import srcgrad as torch`: "Extending torch.func
with autograd.Function" and "Jacobians, Hessians, hvp, vhp, and more" (with
torch.autograd.functional's versions).

Each expected text below was printed by PyTorch 2.13 on CPU for the same program under
`import torch` (`torch.` read as `srcgrad.`); the inputs come from NumPy's seeded
generator so that both libraries see the same numbers; none of these tests needs PyTorch.
"""

from test_tensor_tutorials import expect



# Extending torch.func with autograd.Function: NumpySort/NumpyTake with vmap staticmethods,
# MyCube with generate_vmap_rule, and PyTorch's errors under the transforms


def test_extending_func_with_autograd_function():
    expect(
        r'''
        rs = np.random.RandomState(1)
        def randn(*shape):
            return torch.tensor(rs.standard_normal(shape), dtype=torch.float32)

        def to_numpy(tensor):
            return tensor.cpu().numpy()

        class NumpySort(torch.autograd.Function):
            @staticmethod
            def forward(x, dim):
                device = x.device
                x = to_numpy(x)
                ind = np.argsort(x, axis=dim)
                ind_inv = np.argsort(ind, axis=dim)
                result = np.take_along_axis(x, ind, axis=dim)
                return (torch.tensor(result, device=device), torch.tensor(ind, device=device),
                        torch.tensor(ind_inv, device=device))

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, dim = inputs
                _, ind, ind_inv = output
                ctx.mark_non_differentiable(ind, ind_inv)
                ctx.save_for_backward(ind, ind_inv)
                ctx.dim = dim

            @staticmethod
            def backward(ctx, grad_output, _0, _1):
                ind, ind_inv = ctx.saved_tensors
                return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

            @staticmethod
            def vmap(info, in_dims, x, dim):
                x_bdim, _ = in_dims
                x = x.movedim(x_bdim, 0)
                dim = dim if dim >= 0 else dim + x.dim() - 1
                return NumpySort.apply(x, dim + 1), (0, 0, 0)

        class NumpyTake(torch.autograd.Function):
            @staticmethod
            def forward(x, ind, ind_inv, dim):
                device = x.device
                x = to_numpy(x)
                ind = to_numpy(ind)
                return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, ind, ind_inv, dim = inputs
                ctx.save_for_backward(ind, ind_inv)
                ctx.dim = dim

            @staticmethod
            def backward(ctx, grad_output):
                ind, ind_inv = ctx.saved_tensors
                result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
                return result, None, None, None

            @staticmethod
            def vmap(info, in_dims, x, ind, ind_inv, dim):
                x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
                logical_dim = x.dim() if x_bdim is None else x_bdim - 1
                dim = dim if dim >= 0 else dim + logical_dim

                def maybe_expand_bdim_at_front(x, x_bdim):
                    if x_bdim is None:
                        return x.expand(info.batch_size, *x.shape)
                    return x.movedim(x_bdim, 0)

                x = maybe_expand_bdim_at_front(x, x_bdim)
                ind = maybe_expand_bdim_at_front(ind, ind_bdim)
                ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)
                return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0

        def numpy_sort(x, dim=-1):
            result, _, _ = NumpySort.apply(x, dim)
            return result

        x = randn(2, 3)
        grad_x = torch.func.grad(lambda x: numpy_sort(x).sum())(x)
        print(grad_x, torch.allclose(grad_x, torch.ones_like(x)))
        w = randn(2, 3)
        print(torch.func.grad(lambda x: (numpy_sort(x) * w).sum())(x))
        result = torch.vmap(numpy_sort)(x)
        print(result, torch.allclose(result, numpy_sort(result, 1)))
        out = torch.vmap(NumpySort.apply, in_dims=(1, None))(x, 0)
        print([o.shape for o in out], out[0])
        print(torch.vmap(NumpyTake.apply, in_dims=(0, None, None, None))(x, out[1][:, 0], out[2][:, 0], 0))
        print(torch.func.vjp(numpy_sort, x)[1](w))
        print(torch.func.jacrev(numpy_sort)(x)[1])

        class MyCube(torch.autograd.Function):
            @staticmethod
            def forward(x):
                result = x ** 3
                dx = 3 * x ** 2
                return result, dx

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, = inputs
                result, dx = output
                ctx.save_for_backward(x, dx)

            @staticmethod
            def backward(ctx, grad_output, grad_dx):
                x, dx = ctx.saved_tensors
                result = grad_output * dx + grad_dx * 6 * x
                return result

        def my_cube(x):
            result, _ = MyCube.apply(x)
            return result

        x = randn()
        ggx = torch.func.grad(torch.func.grad(my_cube))(x)
        print(ggx, torch.allclose(ggx, 6 * x))

        class MyCubeV(MyCube):
            generate_vmap_rule = True

        def my_cube_v(x):
            result, dx = MyCubeV.apply(x)
            return result

        x = randn(3)
        result = torch.vmap(my_cube_v)(x)
        print(result, torch.allclose(result, x ** 3))
        for f, name in [(my_cube, "my_cube"), (my_cube_v, "my_cube_v")]:
            try:
                print(name, torch.vmap(f)(x))
            except RuntimeError as e:
                print(name, e)
        print(torch.func.jacrev(my_cube_v)(x))
        print(torch.vmap(torch.func.grad(my_cube_v))(x))
        try:
            torch.func.jacfwd(my_cube_v)(x)
        except NotImplementedError as e:
            print(type(e).__name__, e)

        class MyCubeJ(MyCube):
            generate_vmap_rule = True

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, = inputs
                result, dx = output
                ctx.save_for_backward(x, dx)
                ctx.save_for_forward(x, dx)

            @staticmethod
            def jvp(ctx, x_t):
                x, dx = ctx.saved_tensors
                return dx * x_t, 6 * x * x_t

        print(torch.func.jacfwd(lambda x: MyCubeJ.apply(x)[0])(x))
        print(torch.func.jvp(lambda x: MyCubeJ.apply(x), (x,), (torch.ones(3),)))
        print(torch.func.hessian(lambda x: MyCubeJ.apply(x)[0].sum())(x))

        class Ctx(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        for name, call in [("grad", lambda: torch.func.grad(lambda x: Ctx.apply(x).sum())(x)),
                           ("vmap", lambda: torch.vmap(Ctx.apply)(x)),
                           ("jvp", lambda: torch.func.jvp(Ctx.apply, (x,), (x,))),
                           ("plain", lambda: Ctx.apply(x))]:
            try:
                print(name, call())
            except RuntimeError as e:
                print(name, e)
        ''',
        r'''
        tensor([[1., 1., 1.],
                [1., 1., 1.]]) True
        tensor([[ 0.3190,  1.7448, -0.7612],
                [ 1.4621, -2.0601, -0.2494]])
        tensor([[-0.6118, -0.5282,  1.6243],
                [-2.3015, -1.0730,  0.8654]]) True
        [srcgrad.Size([3, 2]), srcgrad.Size([3, 2]), srcgrad.Size([3, 2])] tensor([[-1.0730,  1.6243],
                [-0.6118,  0.8654],
                [-2.3015, -0.5282]])
        tensor([[-0.6118,  1.6243, -0.6118],
                [ 0.8654, -1.0730,  0.8654]])
        (tensor([[ 0.3190,  1.7448, -0.7612],
                [ 1.4621, -2.0601, -0.2494]]),)
        tensor([[[0., 0., 0.],
                 [0., 0., 1.]],

                [[0., 0., 0.],
                 [1., 0., 0.]],

                [[0., 0., 0.],
                 [0., 1., 0.]]])
        tensor(-1.9345) True
        tensor([-0.0566,  1.4574, -1.3306]) True
        my_cube You tried to vmap over MyCube, but it does not have vmap support. Please override and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        my_cube_v tensor([-0.0566,  1.4574, -1.3306])
        tensor([[0.4425, 0.0000, 0.0000],
                [0.0000, 3.8563, 0.0000],
                [0.0000, 0.0000, 3.6293]])
        tensor([0.4425, 3.8563, 3.6293])
        NotImplementedError You must implement the jvp function for custom autograd.Function to use it with forward mode AD.
        tensor([[0.4425, 0.0000, 0.0000],
                [0.0000, 3.8563, 0.0000],
                [0.0000, 0.0000, 3.6293]])
        ((tensor([-0.0566,  1.4574, -1.3306]), tensor([0.4425, 3.8563, 3.6293])), (tensor([0.4425, 3.8563, 3.6293]), tensor([-2.3043,  6.8026, -6.5993])))
        tensor([[-2.3043,  0.0000,  0.0000],
                [ 0.0000,  6.8026,  0.0000],
                [ 0.0000,  0.0000, -6.5993]])
        grad In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        vmap In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        jvp In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html
        plain tensor([-0.7681,  2.2675, -2.1998])
        ''',
    )


# Jacobians, Hessians, hvp, vhp: jacrev/jacfwd/hessian/vmap and torch.autograd.functional
# (a Hessian's diagonal printed: the shim's second derivative graph gives +0.0 where PyTorch gives -0.0)


def test_jacobians_hessians_tutorial():
    expect(
        r'''
        F = torch.nn.functional
        from functools import partial
        vmap, vjp, jacrev, jacfwd, hessian, jvp, grad = (torch.func.vmap, torch.func.vjp, torch.func.jacrev,
                                                          torch.func.jacfwd, torch.func.hessian, torch.func.jvp,
                                                          torch.func.grad)
        rs = np.random.RandomState(5)
        def randn(*shape):
            return torch.tensor(rs.standard_normal(shape), dtype=torch.float64)

        def predict(weight, bias, x):
            return F.linear(x, weight, bias).tanh()

        D = 6
        weight = randn(D, D)
        bias = randn(D)
        x = randn(D)

        def compute_jac(xp):
            jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors]
            return torch.stack(jacobian_rows)

        xp = x.clone().requires_grad_()
        unit_vectors = torch.eye(D, dtype=torch.float64)
        jacobian = compute_jac(xp)
        print(jacobian.shape)
        print(jacobian[0])

        _, vjp_fn = vjp(partial(predict, weight, bias), x)
        ft_jacobian, = vmap(vjp_fn)(unit_vectors)
        print(torch.allclose(ft_jacobian, jacobian))
        ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
        print(torch.allclose(ft_jacobian, jacobian))
        ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
        print(ft_jac_weight.shape, ft_jac_bias.shape, ft_jac_bias[1])
        fw_weight, fw_bias = jacfwd(predict, argnums=(0, 1))(weight, bias, x)
        print(torch.allclose(fw_weight, ft_jac_weight), torch.allclose(fw_bias, ft_jac_bias))

        Din, Dout = 3, 7
        weight = randn(Dout, Din)
        bias = randn(Dout)
        x = randn(Din)
        print(weight.shape)
        print(torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), jacrev(predict, argnums=2)(weight, bias, x)))

        Din, Dout = 5, 3
        weight = randn(Dout, Din)
        bias = randn(Dout)
        x = randn(Din)
        hess_api = hessian(predict, argnums=2)(weight, bias, x)
        hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
        hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
        print(hess_api.shape, torch.allclose(hess_api, hess_fwdfwd), torch.allclose(hess_api, hess_revrev))
        print(hess_api[0, :2])

        batch_size, Din, Dout = 4, 3, 5
        weight = randn(Dout, Din)
        print(f"weight shape = {weight.shape}")
        bias = randn(Dout)
        x = randn(batch_size, Din)
        xb = x
        compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
        batch_jacobian0 = compute_batch_jacobian(weight, bias, x)

        def predict_with_output_summed(weight, bias, x):
            return predict(weight, bias, x).sum(0)

        batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
        print(batch_jacobian0.shape, torch.allclose(batch_jacobian0, batch_jacobian1))
        compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
        batch_hess = compute_batch_hessian(weight, bias, x)
        print(batch_hess.shape, batch_hess[2, 1, 0])

        def hvp(f, primals, tangents):
            return jvp(grad(f), primals, tangents)[1]

        def f(x):
            return x.sin().sum()

        x = randn(8)
        tangent = randn(8)
        result = hvp(f, (x,), (tangent,))
        print(result)

        def hvp_revrev(f, primals, tangents):
            _, vjp_fn = vjp(grad(f), *primals)
            return vjp_fn(*tangents)

        result_hvp_revrev = hvp_revrev(f, (x,), (tangent,))
        print(torch.allclose(result, result_hvp_revrev[0]))

        # the same quantities with torch.autograd.functional
        AF = torch.autograd.functional
        print(torch.allclose(AF.jacobian(partial(predict, weight, bias), xb[0]), batch_jacobian0[0]))
        print(AF.jacobian(predict, (weight, bias, xb[0]))[1][2])
        print(AF.hessian(f, x).diagonal()[:4])
        print(AF.hvp(f, x, tangent)[1])
        print(AF.vhp(f, x, tangent)[1])
        print(AF.jvp(lambda x: x.sin() * 2, x, tangent))
        print(AF.vjp(lambda x: x.sin() * 2, x, tangent)[1])
        print(torch.allclose(AF.jacobian(partial(predict, weight, bias), xb[0], vectorize=True, strategy="forward-mode"),
                             batch_jacobian0[0]))
        print(AF.hessian(lambda a, b: (a * b.sin()).sum(), (x[:3], x[3:6]))[0][1])
        ''',
        r'''
        srcgrad.Size([6, 6])
        tensor([ 0.1021, -0.0765,  0.5623, -0.0583,  0.0254,  0.3661],
               dtype=srcgrad.float64)
        True
        True
        srcgrad.Size([6, 6, 6]) srcgrad.Size([6, 6]) tensor([0.0000, 0.5569, 0.0000, 0.0000, 0.0000, 0.0000], dtype=srcgrad.float64)
        True True
        srcgrad.Size([7, 3])
        True
        srcgrad.Size([3, 5, 5]) True True
        tensor([[-0.0209,  0.1795,  0.0298,  0.0641,  0.0668],
                [ 0.1795, -1.5403, -0.2558, -0.5500, -0.5730]], dtype=srcgrad.float64)
        weight shape = srcgrad.Size([5, 3])
        srcgrad.Size([4, 5, 3]) True
        srcgrad.Size([4, 5, 3, 3]) tensor([ 0.0010, -0.0009,  0.0026], dtype=srcgrad.float64)
        tensor([-0.9700,  0.6331,  1.4017, -0.5716,  0.0638,  0.0553,  0.8770,  1.2937],
               dtype=srcgrad.float64)
        True
        True
        tensor([0.0000, 0.0000, 0.6581, 0.0000, 0.0000], dtype=srcgrad.float64)
        tensor([-0.8001, -0.9976, -0.8762, -0.6517], dtype=srcgrad.float64)
        tensor([-0.9700,  0.6331,  1.4017, -0.5716,  0.0638,  0.0553,  0.8770,  1.2937],
               dtype=srcgrad.float64)
        tensor([-0.9700,  0.6331,  1.4017, -0.5716,  0.0638,  0.0553,  0.8770,  1.2937],
               dtype=srcgrad.float64)
        (tensor([1.6003, 1.9952, 1.7525, 1.3034, 1.3591, 1.9884, 1.9720, 1.9889],
               dtype=srcgrad.float64), tensor([ 1.4543,  0.0877,  1.5418,  1.3306, -0.1377, -0.0120,  0.2968, -0.2742],
               dtype=srcgrad.float64))
        tensor([ 1.4543,  0.0877,  1.5418,  1.3306, -0.1377, -0.0120,  0.2968, -0.2742],
               dtype=srcgrad.float64)
        True
        tensor([[0.7585, 0.0000, 0.0000],
                [0.0000, 0.7336, 0.0000],
                [0.0000, 0.0000, 0.1075]], dtype=srcgrad.float64)
        ''',
    )
