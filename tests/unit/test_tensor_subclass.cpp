// TensorImpl subclasses: a storage-less "sparse-like" impl and a strided "quantized-like" one
// keep their subclass through make_view and shallow_copy_and_detach, take their device from the
// tensor, and count versions without a storage. See Note [TensorImpl subclasses and storage-less
// tensors].
#include <gtest/gtest.h>

#include <string>

#include "UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

using test::error_of;

// Sparse-like: no storage; its "values" live in a member tensor shared by shallow copies.
class FakeSparseImpl final : public TensorImpl {
 public:
  FakeSparseImpl(Device device, IntArrayRef sizes, Tensor values)
      : TensorImpl(backend_key_set(device.type(), kSparse, false), kFloat32, device, kSparse, sizes),
        values_(std::move(values)) {}
  FakeSparseImpl(ShallowCopy t, const FakeSparseImpl& src) : TensorImpl(t, src), values_(src.values_) {}

  IntrusivePtr<TensorImpl> shallow_copy_and_detach() const override {
    return IntrusivePtr<TensorImpl>(new FakeSparseImpl(SHALLOW_COPY, *this));
  }
  void shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) override {
    auto* src = dynamic_cast<const FakeSparseImpl*>(impl.get());
    EMBER_CHECK(src != nullptr, "[FakeSparseImpl] not a FakeSparseImpl");
    copy_tensor_metadata(*src, *this);
    values_ = src->values_;
  }
  const Tensor& values() const { return values_; }

 private:
  Tensor values_;
};

// Quantized-like: a plain storage plus a field of its own.
class FakeQuantImpl final : public TensorImpl {
 public:
  FakeQuantImpl(Storage s, IntArrayRef sizes, double scale) : TensorImpl(std::move(s), kQUInt8, sizes), scale_(scale) {}
  FakeQuantImpl(ShallowCopy t, const FakeQuantImpl& src) : TensorImpl(t, src), scale_(src.scale_) {}
  IntrusivePtr<TensorImpl> shallow_copy_and_detach() const override {
    return IntrusivePtr<TensorImpl>(new FakeQuantImpl(SHALLOW_COPY, *this));
  }
  double scale() const { return scale_; }

 private:
  double scale_;
};

// Forgets to override the hook.
class ForgetfulImpl final : public TensorImpl {
 public:
  explicit ForgetfulImpl(Storage s) : TensorImpl(std::move(s), kFloat32, {4}) {}
};

}  // namespace

TEST(TensorSubclass, StorageLessTensorTakesItsDeviceFromTheTensor) {
  Tensor values = make_empty({3}, kFloat32);
  Tensor t(make_intrusive<FakeSparseImpl>(Device(kMeta), IntArrayRef{4, 5}, values));
  EXPECT_FALSE(t.has_storage());
  EXPECT_EQ(t.unsafeGetTensorImpl()->storage().get(), nullptr);
  EXPECT_EQ(t.device(), Device(kMeta));
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(t.layout(), kSparse);
  EXPECT_EQ(t.key_set(), DispatchKeySet(DispatchKey::SparseMeta));
  EXPECT_EQ(t.sizes(), IntArrayRef({4, 5}));
  EXPECT_EQ(t.numel(), 20);
  EXPECT_EQ(t.dim(), 2);
  const std::string e = error_of([&] { (void)t.data_ptr(); });
  EXPECT_NE(e.find("[data_ptr] this Sparse tensor on meta has no storage"), std::string::npos) << e;
  Tensor c(make_intrusive<FakeSparseImpl>(Device(kCPU), IntArrayRef{2}, values));
  EXPECT_EQ(c.device(), Device(kCPU));
  EXPECT_EQ(c.key_set(), DispatchKeySet(DispatchKey::SparseCPU));
  EXPECT_THROW((void)c.data_ptr<float>(), ValueError);

  // The key set must name the device's backend.
  EXPECT_NE(error_of([] {
              TensorImpl bad(DispatchKeySet(DispatchKey::SparseCPU), kFloat32, Device(kMeta), kSparse, {2});
            }).find("[TensorImpl] the key set {SparseCPU} has no backend bit for the tensor's device meta"),
            std::string::npos);
  EXPECT_THROW(TensorImpl(DispatchKeySet(DispatchKey::SparseCPU), kFloat32, Device(kCPU), kSparse, {-1}), ValueError);
}

TEST(TensorSubclass, StorageLessVersionCounterIsSharedByShallowCopies) {
  Tensor t(make_intrusive<FakeSparseImpl>(Device(kCPU), IntArrayRef{4}, make_empty({2}, kFloat32)));
  EXPECT_EQ(t._version(), 0u);
  t.unsafeGetTensorImpl()->bump_version();
  t.unsafeGetTensorImpl()->bump_version();
  EXPECT_EQ(t._version(), 2u);
  Tensor d(t.unsafeGetTensorImpl()->shallow_copy_and_detach());
  EXPECT_EQ(d._version(), 2u);
  d.unsafeGetTensorImpl()->bump_version();
  EXPECT_EQ(t._version(), 3u);  // one counter for both
  // Another storage-less tensor has its own.
  Tensor u(make_intrusive<FakeSparseImpl>(Device(kCPU), IntArrayRef{4}, make_empty({2}, kFloat32)));
  EXPECT_EQ(u._version(), 0u);
}

TEST(TensorSubclass, ShallowCopyAndViewsKeepTheSubclass) {
  Tensor values = make_empty({3}, kFloat32);
  Tensor t(make_intrusive<FakeSparseImpl>(Device(kCPU), IntArrayRef{4, 5}, values));
  t.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  IntrusivePtr<TensorImpl> c = t.unsafeGetTensorImpl()->shallow_copy_and_detach();
  auto* sc = dynamic_cast<FakeSparseImpl*>(c.get());
  ASSERT_NE(sc, nullptr);
  EXPECT_NE(c.get(), t.unsafeGetTensorImpl());
  EXPECT_TRUE(sc->values().is_same(values));  // the data is shared
  EXPECT_EQ(c->sizes(), IntArrayRef({4, 5}));
  EXPECT_EQ(c->device(), Device(kCPU));
  EXPECT_EQ(c->layout(), kSparse);
  // Detached: no autograd meta travels, so neither does the Autograd key.
  EXPECT_EQ(c->key_set(), DispatchKeySet(DispatchKey::SparseCPU));
  EXPECT_EQ(c->autograd_meta(), nullptr);

  // A quantized-like tensor with storage: views are of its subclass and share its storage.
  Storage s = make_storage(12, Device(kCPU));
  Tensor q(make_intrusive<FakeQuantImpl>(s, IntArrayRef{3, 4}, 0.5));
  Tensor v = make_view(q, {4, 3}, {1, 4}, 0);
  auto* qv = dynamic_cast<FakeQuantImpl*>(v.unsafeGetTensorImpl());
  ASSERT_NE(qv, nullptr);
  EXPECT_EQ(qv->scale(), 0.5);
  EXPECT_EQ(v.unsafeGetTensorImpl()->storage().get(), s.get());
  EXPECT_EQ(v.sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(v.strides(), IntArrayRef({1, 4}));
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_EQ(v.dtype(), kQUInt8);
  EXPECT_EQ(v.key_set(), DispatchKeySet(DispatchKey::QuantizedCPU));
  Tensor v2 = make_view(q, {2}, {1}, 5);
  EXPECT_EQ(v2.storage_offset(), 5);
  EXPECT_EQ(v2.numel(), 2);
  EXPECT_EQ(static_cast<char*>(v2.data_ptr()) - static_cast<char*>(q.data_ptr()), 5);
  // The storage's version counter stays the one shared by every view.
  v.unsafeGetTensorImpl()->bump_version();
  EXPECT_EQ(q._version(), 1u);
  EXPECT_EQ(v2._version(), 1u);

  // A plain tensor's view is a plain TensorImpl, without the base's Autograd key.
  Tensor p = make_empty({2, 3}, kFloat32);
  p.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  Tensor pv = make_view(p, {3, 2}, {1, 3}, 1);
  EXPECT_EQ(typeid(*pv.unsafeGetTensorImpl()), typeid(TensorImpl));
  EXPECT_EQ(pv.key_set(), DispatchKeySet(DispatchKey::CPU));
  EXPECT_EQ(pv.storage_offset(), 1);
  EXPECT_EQ(pv.strides(), IntArrayRef({1, 3}));
  EXPECT_FALSE(pv.is_contiguous());
  // A plain TensorImpl without storage takes the same path and keeps its device and counter.
  Tensor bare(make_intrusive<TensorImpl>(DispatchKeySet(DispatchKey::SparseMeta), kFloat32, Device(kMeta), kSparse,
                                         IntArrayRef{6}));
  bare.unsafeGetTensorImpl()->bump_version();
  Tensor bv = make_view(bare, {2, 3}, {3, 1}, 0);
  EXPECT_EQ(bv.device(), Device(kMeta));
  EXPECT_FALSE(bv.has_storage());
  bv.unsafeGetTensorImpl()->bump_version();
  EXPECT_EQ(bare._version(), 2u);
}

TEST(TensorSubclass, ShallowCopyFrom) {
  Tensor a(make_intrusive<FakeSparseImpl>(Device(kCPU), IntArrayRef{2}, make_empty({1}, kFloat32)));
  Tensor b_values = make_empty({7}, kFloat32);
  Tensor b(make_intrusive<FakeSparseImpl>(Device(kMeta), IntArrayRef{3, 3}, b_values));
  b.unsafeGetTensorImpl()->bump_version();
  a.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  a.unsafeGetTensorImpl()->shallow_copy_from(b.impl());
  EXPECT_EQ(a.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(a.device(), Device(kMeta));
  // b's backend and layout, a's own Autograd state.
  EXPECT_EQ(a.key_set(), DispatchKeySet(DispatchKey::SparseMeta) | DispatchKeySet(DispatchKey::AutogradMeta));
  EXPECT_TRUE(static_cast<FakeSparseImpl*>(a.unsafeGetTensorImpl())->values().is_same(b_values));
  EXPECT_EQ(a._version(), 1u);

  // The base implementation: plain into plain works, across subclasses it refuses.
  Tensor p = make_empty({2}, kFloat32), r = make_empty({5}, kFloat64);
  p.unsafeGetTensorImpl()->shallow_copy_from(r.impl());
  EXPECT_EQ(p.dtype(), kFloat64);
  EXPECT_EQ(p.numel(), 5);
  EXPECT_EQ(p.unsafeGetTensorImpl()->storage().get(), r.unsafeGetTensorImpl()->storage().get());
  EXPECT_NE(
      error_of([&] { p.unsafeGetTensorImpl()->shallow_copy_from(a.impl()); }).find("[shallow_copy_from] cannot copy a"),
      std::string::npos);
}

TEST(TensorSubclass, ASubclassWithoutTheHookIsRefused) {
  Tensor f(make_intrusive<ForgetfulImpl>(make_storage(16, Device(kCPU))));
  const std::string e = error_of([&] { make_view(f, {2}, {1}, 0); });
  EXPECT_NE(e.find("[shallow_copy_and_detach] the TensorImpl subclass"), std::string::npos) << e;
  EXPECT_NE(e.find("ForgetfulImpl"), std::string::npos) << e;
  EXPECT_NE(e.find("a view or detach of it would lose the subclass"), std::string::npos) << e;
  EXPECT_THROW(make_view(f, {2}, {1}, 0), NotImplementedError);
}

TEST(TensorSubclass, DetachKeepsTheSubclassAndIsNotAView) {
  Storage s = make_storage(12, Device(kCPU));
  Tensor q(make_intrusive<FakeQuantImpl>(s, IntArrayRef{3, 4}, 0.25));
  Tensor v = make_view(q, {4, 3}, {1, 4}, 0);
  for (const Tensor& t : {q, v}) {
    Tensor d = t.detach();
    auto* qd = dynamic_cast<FakeQuantImpl*>(d.unsafeGetTensorImpl());
    ASSERT_NE(qd, nullptr) << "detach lost the subclass";
    EXPECT_EQ(qd->scale(), 0.25);
    EXPECT_FALSE(d.is_view()) << "detach is an alias, not a view";
    EXPECT_EQ(d.sizes(), t.sizes());
    EXPECT_EQ(d.strides(), t.strides());
    EXPECT_EQ(d.unsafeGetTensorImpl()->storage().get(), s.get());
    const uint64_t before = t._version();
    d.unsafeGetTensorImpl()->bump_version();
    EXPECT_EQ(t._version(), before + 1) << "detach shares the version counter";
  }
  // A storage-less subclass too: its own version counter is shared.
  Tensor values = make_empty({3}, kFloat32);
  Tensor sp(make_intrusive<FakeSparseImpl>(Device(kCPU), IntArrayRef{4, 5}, values));
  Tensor ds = sp.detach();
  ASSERT_NE(dynamic_cast<FakeSparseImpl*>(ds.unsafeGetTensorImpl()), nullptr);
  ds.unsafeGetTensorImpl()->bump_version();
  EXPECT_EQ(sp._version(), 1u);
}
