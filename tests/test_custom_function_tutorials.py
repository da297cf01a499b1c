"""PyTorch tutorials built on custom autograd Functions and the func transforms, run with
`import srcgrad as torch`: "Double Backward with Custom Functions", "Fusing Convolution
and Batch Norm using Custom Function" (on a small synthetic data set in float64, without
dropout, in place of MNIST) and "Neural Tangent Kernels" (a smaller CNN, in float64).

Each expected text below was printed by PyTorch 2.13 on CPU for the same program under
`import torch` (`torch.` read as `srcgrad.`); the inputs come from NumPy's seeded
generator so that both libraries see the same numbers; none of these tests needs PyTorch.
"""

from test_tensor_tutorials import expect



# Double Backward with Custom Functions: saved inputs, outputs, intermediates, CubeBackward


def test_double_backward_with_custom_functions():
    expect(
        r'''
        rs = np.random.RandomState(2)
        def rand(*shape):
            return torch.tensor(rs.uniform(size=shape), dtype=torch.double, requires_grad=True)

        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**2

            @staticmethod
            def backward(ctx, grad_out):
                x, = ctx.saved_tensors
                return grad_out * 2 * x

        x = rand(3, 3)
        print(torch.autograd.gradcheck(Square.apply, x), torch.autograd.gradgradcheck(Square.apply, x))
        x = torch.tensor(1., requires_grad=True).clone()
        out = Square.apply(x)
        grad_x, = torch.autograd.grad(out, x, create_graph=True)
        print(grad_x, out, x.grad_fn)
        print(torch.autograd.grad(grad_x, x))

        class Exp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                result = torch.exp(x)
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_out):
                result, = ctx.saved_tensors
                return result * grad_out

        x = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
        print(torch.autograd.gradcheck(Exp.apply, x), torch.autograd.gradgradcheck(Exp.apply, x))
        out = Exp.apply(x)
        grad_x, = torch.autograd.grad(out, x, create_graph=True)
        print(grad_x, out)
        print(torch.autograd.grad(grad_x, x))

        class Sinh(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                expx = torch.exp(x)
                expnegx = torch.exp(-x)
                ctx.save_for_backward(expx, expnegx)
                return (expx - expnegx) / 2, expx, expnegx

            @staticmethod
            def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
                expx, expnegx = ctx.saved_tensors
                grad_input = grad_out * (expx + expnegx) / 2
                grad_input += _grad_out_exp * expx
                grad_input -= _grad_out_negexp * expnegx
                return grad_input

        def sinh(x):
            return Sinh.apply(x)[0]

        x = rand(3, 3)
        print(torch.autograd.gradcheck(sinh, x), torch.autograd.gradgradcheck(sinh, x))
        out = sinh(x)
        grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
        print(grad_x)
        print(torch.autograd.grad(grad_x.sum(), x))

        class SinhBad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                expx = torch.exp(x)
                expnegx = torch.exp(-x)
                ctx.expx = expx
                ctx.expnegx = expnegx
                return (expx - expnegx) / 2

            @staticmethod
            def backward(ctx, grad_out):
                expx = ctx.expx
                expnegx = ctx.expnegx
                grad_input = grad_out * (expx + expnegx) / 2
                return grad_input

        out = SinhBad.apply(x)
        grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
        print(grad_x.requires_grad, grad_x.grad_fn)
        print(torch.autograd.gradcheck(SinhBad.apply, x), torch.autograd.gradgradcheck(SinhBad.apply, x, raise_exception=False))

        def cube_forward(x):
            return x**3

        def cube_backward(grad_out, x):
            return grad_out * 3 * x**2

        def cube_backward_backward(grad_out, sav_grad_out, x):
            return grad_out * sav_grad_out * 6 * x

        def cube_backward_backward_grad_out(grad_out, x):
            return grad_out * 3 * x**2

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return cube_forward(x)

            @staticmethod
            def backward(ctx, grad_out):
                x, = ctx.saved_tensors
                return CubeBackward.apply(grad_out, x)

        class CubeBackward(torch.autograd.Function):
            @staticmethod
            def forward(ctx, grad_out, x):
                ctx.save_for_backward(x, grad_out)
                return cube_backward(grad_out, x)

            @staticmethod
            def backward(ctx, grad_out):
                x, sav_grad_out = ctx.saved_tensors
                dx = cube_backward_backward(grad_out, sav_grad_out, x)
                dgrad_out = cube_backward_backward_grad_out(grad_out, x)
                return dgrad_out, dx

        x = torch.tensor(2., requires_grad=True, dtype=torch.double)
        print(torch.autograd.gradcheck(Cube.apply, x), torch.autograd.gradgradcheck(Cube.apply, x))
        out = Cube.apply(x)
        grad_x, = torch.autograd.grad(out, x, create_graph=True)
        print(grad_x, grad_x.grad_fn.name(), out.grad_fn.name())
        print(torch.autograd.grad(grad_x, x))
        ''',
        r'''
        True True
        tensor(2., grad_fn=<MulBackward0>) tensor(1., grad_fn=<SquareBackward>) <CloneBackward0 object at 0x?>
        (tensor(2.),)
        True True
        tensor(2.7183, dtype=srcgrad.float64, grad_fn=<MulBackward0>) tensor(2.7183, dtype=srcgrad.float64, grad_fn=<ExpBackward>)
        (tensor(2.7183, dtype=srcgrad.float64),)
        True True
        tensor([[1.0358, 1.1992, 1.1433],
                [1.0091, 1.1348, 1.0171],
                [1.3246, 1.3873, 1.1246]], dtype=srcgrad.float64, grad_fn=<SubBackward0>)
        (tensor([[0.2700, 0.6619, 0.5542],
                [0.1350, 0.5365, 0.1855],
                [0.8686, 0.9616, 0.5146]], dtype=srcgrad.float64),)
        False None
        True False
        True True
        tensor(12., dtype=srcgrad.float64, grad_fn=<CubeBackwardBackward>) CubeBackwardBackward CubeBackward
        (tensor(12., dtype=srcgrad.float64),)
        ''',
    )


# Fusing Convolution and Batch Norm: gradchecks, then fused and unfused training runs


def test_fusing_convolution_and_batch_norm():
    expect(
        r'''
        F = torch.nn.functional
        nn = torch.nn
        once_differentiable = torch.autograd.function.once_differentiable
        rs = np.random.RandomState(3)
        def rand(*shape):
            return torch.tensor(rs.uniform(size=shape), dtype=torch.double, requires_grad=True)

        def convolution_backward(grad_out, X, weight):
            grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
            grad_X = F.conv_transpose2d(grad_out, weight)
            return grad_X, grad_input

        class Conv2D(torch.autograd.Function):
            @staticmethod
            def forward(ctx, X, weight):
                ctx.save_for_backward(X, weight)
                return F.conv2d(X, weight)

            @staticmethod
            @once_differentiable
            def backward(ctx, grad_out):
                X, weight = ctx.saved_tensors
                return convolution_backward(grad_out, X, weight)

        weight = rand(5, 3, 3, 3)
        X = rand(2, 3, 5, 5)
        print(torch.autograd.gradcheck(Conv2D.apply, (X, weight)))

        def unsqueeze_all(t):
            return t[None, :, None, None]

        def batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
            tmp = -((X - unsqueeze_all(sum) / N) * grad_out).sum(dim=(0, 2, 3))
            d_denom = tmp / (sqrt_var + eps)**2
            d_var = d_denom / (2 * sqrt_var)
            d_mean_dx = grad_out / unsqueeze_all(sqrt_var + eps)
            d_mean_dx = unsqueeze_all(-d_mean_dx.sum(dim=(0, 2, 3)) / N)
            grad_input = X * unsqueeze_all(d_var * N)
            grad_input += unsqueeze_all(-d_var * sum)
            grad_input *= 2 / ((N - 1) * N)
            grad_input += d_mean_dx
            grad_input *= unsqueeze_all(sqrt_var + eps)
            grad_input += grad_out
            grad_input /= unsqueeze_all(sqrt_var + eps)
            return grad_input

        class BatchNorm(torch.autograd.Function):
            @staticmethod
            def forward(ctx, X, eps=1e-3):
                sum = X.sum(dim=(0, 2, 3))
                var = X.var(unbiased=True, dim=(0, 2, 3))
                N = X.numel() / X.size(1)
                sqrt_var = torch.sqrt(var)
                ctx.save_for_backward(X)
                ctx.eps = eps
                ctx.sum = sum
                ctx.N = N
                ctx.sqrt_var = sqrt_var
                mean = sum / N
                denom = sqrt_var + eps
                return (X - unsqueeze_all(mean)) / unsqueeze_all(denom)

            @staticmethod
            @once_differentiable
            def backward(ctx, grad_out):
                X, = ctx.saved_tensors
                return batch_norm_backward(grad_out, X, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)

        a = rand(1, 2, 3, 4)
        print(torch.autograd.gradcheck(BatchNorm.apply, (a,), fast_mode=False))

        class FusedConvBN2DFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, X, conv_weight, eps=1e-3):
                assert X.ndim == 4
                ctx.save_for_backward(X, conv_weight)
                X = F.conv2d(X, conv_weight)
                sum = X.sum(dim=(0, 2, 3))
                var = X.var(unbiased=True, dim=(0, 2, 3))
                N = X.numel() / X.size(1)
                sqrt_var = torch.sqrt(var)
                ctx.eps = eps
                ctx.sum = sum
                ctx.N = N
                ctx.sqrt_var = sqrt_var
                mean = sum / N
                denom = sqrt_var + eps
                out = X - unsqueeze_all(mean)
                out /= unsqueeze_all(denom)
                return out

            @staticmethod
            def backward(ctx, grad_out):
                X, conv_weight, = ctx.saved_tensors
                X_conv_out = F.conv2d(X, conv_weight)
                grad_out = batch_norm_backward(grad_out, X_conv_out, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)
                grad_X, grad_input = convolution_backward(grad_out, X, conv_weight)
                return grad_X, grad_input, None, None, None, None, None

        class FusedConvBN(nn.Module):
            def __init__(self, in_channels, out_channels, kernel_size, exp_avg_factor=0.1, eps=1e-3, device=None, dtype=None):
                super(FusedConvBN, self).__init__()
                factory_kwargs = {'device': device, 'dtype': dtype}
                weight_shape = (out_channels, in_channels, kernel_size, kernel_size)
                self.conv_weight = nn.Parameter(torch.empty(*weight_shape, **factory_kwargs))
                self.num_features = out_channels
                self.eps = eps
                self.reset_parameters()

            def forward(self, X):
                return FusedConvBN2DFunction.apply(X, self.conv_weight, self.eps)

            def reset_parameters(self) -> None:
                nn.init.kaiming_uniform_(self.conv_weight, a=math.sqrt(5))

        weight = rand(5, 3, 3, 3)
        X = rand(2, 3, 4, 4)
        print(torch.autograd.gradcheck(FusedConvBN2DFunction.apply, (X, weight)))

        class Net(nn.Module):
            def __init__(self, fused=True):
                super(Net, self).__init__()
                self.fused = fused
                if fused:
                    self.convbn1 = FusedConvBN(1, 4, 3)
                    self.convbn2 = FusedConvBN(4, 6, 3)
                else:
                    self.conv1 = nn.Conv2d(1, 4, 3, 1, bias=False)
                    self.bn1 = nn.BatchNorm2d(4, affine=False, track_running_stats=False, eps=1e-3)
                    self.conv2 = nn.Conv2d(4, 6, 3, 1, bias=False)
                    self.bn2 = nn.BatchNorm2d(6, affine=False, track_running_stats=False, eps=1e-3)
                self.fc1 = nn.Linear(54, 16)
                self.dropout = nn.Dropout(0.0)
                self.fc2 = nn.Linear(16, 10)

            def forward(self, x):
                x = self.convbn1(x) if self.fused else self.bn1(self.conv1(x))
                x = F.relu(x)
                x = self.convbn2(x) if self.fused else self.bn2(self.conv2(x))
                x = F.relu(x)
                x = F.max_pool2d(x, 2)
                x = F.relu(x)
                x = x.flatten(1)
                x = self.fc1(x)
                x = self.dropout(x)
                x = F.relu(x)
                x = self.fc2(x)
                return F.log_softmax(x, dim=1)

        def train(model, device, train_loader, optimizer, epoch):
            model.train()
            for batch_idx, (data, target) in enumerate(train_loader):
                data, target = data.to(device), target.to(device)
                optimizer.zero_grad()
                output = model(data)
                loss = F.nll_loss(output, target)
                loss.backward()
                optimizer.step()
                if batch_idx % 2 == 0:
                    print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                        epoch, batch_idx * len(data), len(train_loader.dataset),
                        100. * batch_idx / len(train_loader), loss.item()))

        def test(model, device, test_loader):
            model.eval()
            test_loss = 0
            correct = 0
            with torch.inference_mode():
                for data, target in test_loader:
                    data, target = data.to(device), target.to(device)
                    output = model(data)
                    test_loss += F.nll_loss(output, target, reduction='sum').item()
                    pred = output.argmax(dim=1, keepdim=True)
                    correct += pred.eq(target.view_as(pred)).sum().item()
            test_loss /= len(test_loader.dataset)
            print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
                test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))

        device = torch.device("cpu")
        images = torch.tensor(rs.standard_normal((96, 1, 10, 10)))  # float64: the two runs agree to the last digit printed
        labels = torch.tensor(rs.randint(0, 10, 96))
        train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images[:64], labels[:64]), batch_size=16)
        test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images[64:], labels[64:]), batch_size=16)
        start = {name: rs.standard_normal(shape) * 0.3 for name, shape in
                 [("1", (4, 1, 3, 3)), ("2", (6, 4, 3, 3)), ("fc1.weight", (16, 54)), ("fc1.bias", (16,)),
                  ("fc2.weight", (10, 16)), ("fc2.bias", (10,))]}
        for fused in (True, False):
            model = Net(fused=fused).to(device).double()
            with torch.no_grad():
                for name, p in model.named_parameters():
                    key = name if name.startswith("fc") else name[-13] if fused else name[4]
                    p.copy_(torch.tensor(start[key]))
            optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
            for epoch in range(2):
                train(model, device, train_loader, optimizer, epoch)
                test(model, device, test_loader)
                scheduler.step()
        ''',
        r'''
        True
        True
        True
        Train Epoch: 0 [0/64 (0%)]	Loss: 4.353990
        Train Epoch: 0 [32/64 (50%)]	Loss: 3.523894

        Test set: Average loss: 3.6469, Accuracy: 1/32 (3%)

        Train Epoch: 1 [0/64 (0%)]	Loss: 3.512134
        Train Epoch: 1 [32/64 (50%)]	Loss: 3.107873

        Test set: Average loss: 3.4133, Accuracy: 3/32 (9%)

        Train Epoch: 0 [0/64 (0%)]	Loss: 4.357535
        Train Epoch: 0 [32/64 (50%)]	Loss: 3.526641

        Test set: Average loss: 3.6493, Accuracy: 1/32 (3%)

        Train Epoch: 1 [0/64 (0%)]	Loss: 3.514240
        Train Epoch: 1 [32/64 (50%)]	Loss: 3.109794

        Test set: Average loss: 3.4152, Accuracy: 3/32 (9%)

        ''',
    )


# Neural Tangent Kernels: Jacobian contraction and NTK-vector products


def test_neural_tangent_kernels():
    expect(
        r'''
        nn = torch.nn
        functional_call, vmap, vjp, jvp, jacrev = (torch.func.functional_call, torch.func.vmap, torch.func.vjp,
                                                   torch.func.jvp, torch.func.jacrev)
        device = 'cpu'
        rs = np.random.RandomState(4)

        class CNN(nn.Module):
            def __init__(self):
                super(CNN, self).__init__()
                self.conv1 = nn.Conv2d(3, 4, (3, 3))
                self.conv2 = nn.Conv2d(4, 4, (3, 3))
                self.conv3 = nn.Conv2d(4, 4, (3, 3))
                self.fc = nn.Linear(16, 3)

            def forward(self, x):
                x = self.conv1(x)
                x = x.relu()
                x = self.conv2(x)
                x = x.relu()
                x = self.conv3(x)
                x = x.flatten(1)
                x = self.fc(x)
                return x

        x_train = torch.tensor(rs.standard_normal((4, 3, 8, 8)), device=device)
        x_test = torch.tensor(rs.standard_normal((2, 3, 8, 8)), device=device)
        net = CNN().to(device).double()
        with torch.no_grad():
            for p in net.parameters():
                p.copy_(torch.tensor(rs.standard_normal(tuple(p.shape)) * 0.3))
        params = {k: v.detach() for k, v in net.named_parameters()}

        def fnet_single(params, x):
            return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

        def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute='full'):
            jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
            jac1 = jac1.values()
            jac1 = [j.flatten(2) for j in jac1]
            jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
            jac2 = jac2.values()
            jac2 = [j.flatten(2) for j in jac2]
            einsum_expr = None
            if compute == 'full':
                einsum_expr = 'Naf,Mbf->NMab'
            elif compute == 'trace':
                einsum_expr = 'Naf,Maf->NM'
            elif compute == 'diagonal':
                einsum_expr = 'Naf,Maf->NMa'
            else:
                assert False
            result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
            result = result.sum(0)
            return result

        result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
        print(result.shape)
        print(result[0, 1])
        result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'trace')
        print(result.shape)
        print(result)
        print(empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'diagonal')[1])

        def empirical_ntk_ntk_vps(func, params, x1, x2, compute='full'):
            def get_ntk(x1, x2):
                def func_x1(params):
                    return func(params, x1)

                def func_x2(params):
                    return func(params, x2)

                output, vjp_fn = vjp(func_x1, params)

                def get_ntk_slice(vec):
                    vjps = vjp_fn(vec)
                    _, jvps = jvp(func_x2, (params,), vjps)
                    return jvps

                basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
                return vmap(get_ntk_slice)(basis)

            result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
            if compute == 'full':
                return result
            if compute == 'trace':
                return torch.einsum('NMKK->NM', result)
            if compute == 'diagonal':
                return torch.einsum('NMKK->NMK', result)

        result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params, x_test, x_train)
        result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_test, x_train)
        print(torch.allclose(result_from_jacobian_contraction, result_from_ntk_vps, atol=1e-5))
        print(result_from_ntk_vps.shape, result_from_ntk_vps[1, 2])
        print(empirical_ntk_ntk_vps(fnet_single, params, x_test, x_train, 'trace'))
        ''',
        r'''
        srcgrad.Size([4, 2, 3, 3])
        tensor([[133.6718,  -7.9056,  55.6079],
                [-17.9934, 186.0965, -11.7406],
                [ 61.4135, -29.7175, 226.9556]], dtype=srcgrad.float64)
        srcgrad.Size([4, 2])
        tensor([[284.8618, 546.7239],
                [285.8303, 522.9972],
                [169.9354, 381.4514],
                [544.7390, 498.2427]], dtype=srcgrad.float64)
        tensor([[ 38.8411, 117.1313, 129.8579],
                [134.1804, 142.0333, 246.7836]], dtype=srcgrad.float64)
        True
        srcgrad.Size([2, 4, 3, 3]) tensor([[117.6817, -35.8499,  37.2842],
                [-12.3370,  81.9278, -47.2409],
                [ 44.6045, -58.5912, 181.8419]], dtype=srcgrad.float64)
        tensor([[284.8618, 285.8303, 169.9354, 544.7390],
                [546.7239, 522.9972, 381.4514, 498.2427]], dtype=srcgrad.float64)
        ''',
    )
