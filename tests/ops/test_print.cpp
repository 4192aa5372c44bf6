// Printing: every expected string below is what LibTorch 1.13.1 prints for the same tensor
// (captured from a throwaway program linked against Debian's libtorch).
#include <gtest/gtest.h>

#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(Print, Matrices) {
  EXPECT_EQ(str(ember::arange(6, kFloat32).view({2, 3})),
            " 0  1  2\n 3  4  5\n[ CPUFloatType{2,3} ]");
  EXPECT_EQ(str(ember::tensor({{1.5, -2.25, 3.0}, {4.0, 5.125, -6.5}}, kFloat32)),
            " 1.5000 -2.2500  3.0000\n 4.0000  5.1250 -6.5000\n[ CPUFloatType{2,3} ]");
  EXPECT_EQ(str(ember::arange(6, kFloat32).view({2, 3}).t()), " 0  3\n 1  4\n 2  5\n[ CPUFloatType{3,2} ]");
  EXPECT_EQ(str(ember::tensor({{1.0}, {2.0}}, kFloat32)), " 1\n 2\n[ CPUFloatType{2,1} ]");
  EXPECT_EQ(str(ember::tensor({{1e6, 2.5}, {3.0, 4.0}}, kFloat64)),
            " 1.0000e+06  2.5000e+00\n 3.0000e+00  4.0000e+00\n[ CPUDoubleType{2,2} ]");
  EXPECT_EQ(str(ember::tensor({{123456.5, 1000.0}, {2000.0, 3000.0}}, kFloat64)),
            "1e+05 *\n 1.2346  0.0100\n  0.0200  0.0300\n[ CPUDoubleType{2,2} ]");
  EXPECT_EQ(str(ember::tensor({{0.001, 0.002}, {0.003, 0.004}}, kFloat64)),
            "0.001 *\n 1.0000  2.0000\n  3.0000  4.0000\n[ CPUDoubleType{2,2} ]");
  EXPECT_EQ(str(ember::tensor({{123456.0, 1000.0}, {2000.0, 3000.0}}, kFloat64)),
            " 123456    1000\n   2000    3000\n[ CPUDoubleType{2,2} ]");
}

TEST(Print, WideMatricesSplitIntoColumnBlocks) {
  EXPECT_EQ(str(ember::arange(30, kFloat32).view({2, 15}) * 1.5),
            "Columns 1 to 8  0.0000   1.5000   3.0000   4.5000   6.0000   7.5000   9.0000  10.5000\n"
            " 22.5000  24.0000  25.5000  27.0000  28.5000  30.0000  31.5000  33.0000\n"
            "\n"
            "Columns 9 to 15 12.0000  13.5000  15.0000  16.5000  18.0000  19.5000  21.0000\n"
            " 34.5000  36.0000  37.5000  39.0000  40.5000  42.0000  43.5000\n"
            "[ CPUFloatType{2,15} ]");
  EXPECT_EQ(str(ember::arange(60).view({2, 30})),
            "Columns 1 to 20  0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17  18  19\n"
            " 30  31  32  33  34  35  36  37  38  39  40  41  42  43  44  45  46  47  48  49\n"
            "\n"
            "Columns 21 to 30 20  21  22  23  24  25  26  27  28  29\n"
            " 50  51  52  53  54  55  56  57  58  59\n"
            "[ CPULongType{2,30} ]");
  EXPECT_EQ(str(ember::arange(24, kFloat64).view({2, 12}) * 12345.5 + 1000000),
            "Columns 1 to 101e+06 *\n"
            " 1.0000  1.0123  1.0247  1.0370  1.0494  1.0617  1.0741  1.0864  1.0988  1.1111\n"
            "  1.1481  1.1605  1.1728  1.1852  1.1975  1.2099  1.2222  1.2346  1.2469  1.2593\n"
            "\n"
            "Columns 11 to 121e+06 *\n"
            " 1.1235  1.1358\n"
            "  1.2716  1.2839\n"
            "[ CPUDoubleType{2,12} ]");
}

TEST(Print, Scalars) {
  EXPECT_EQ(str(ember::full({}, 3.14159274, kFloat32)), "3.14159\n[ CPUFloatType{} ]");
  EXPECT_EQ(str(ember::full({}, 7)), "7\n[ CPULongType{} ]");
  EXPECT_EQ(str(ember::full({}, true)), "1\n[ CPUBoolType{} ]");
  EXPECT_EQ(str(ember::full({}, 123456789.0, kFloat64)), "1.23457e+08\n[ CPUDoubleType{} ]");
  EXPECT_EQ(str(ember::full({}, 1.5, kFloat16)), "1.5\n[ CPUHalfType{} ]");
  EXPECT_EQ(str(ember::full({}, 0.0)), "0\n[ CPUFloatType{} ]");
  EXPECT_EQ(str(ember::full({}, -2.5)), "-2.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(str(ember::full({}, 1e-10)), "1e-10\n[ CPUFloatType{} ]");
}

TEST(Print, Vectors) {
  EXPECT_EQ(str(ember::arange(5)), " 0\n 1\n 2\n 3\n 4\n[ CPULongType{5} ]");
  EXPECT_EQ(str(ember::tensor({0.1, 0.25, 100.0}, kFloat32)),
            "   0.1000\n   0.2500\n 100.0000\n[ CPUFloatType{3} ]");
  EXPECT_EQ(str(ember::tensor({1e10, 1.0, 2.0}, kFloat32)),
            " 1.0000e+10\n 1.0000e+00\n 2.0000e+00\n[ CPUFloatType{3} ]");
  EXPECT_EQ(str(ember::tensor({1e-5, 2e-5}, kFloat32)), "1e-05 *\n 1.0000\n 2.0000\n[ CPUFloatType{2} ]");
  EXPECT_EQ(str(ember::tensor({123456.0, 1.5}, kFloat64)), " 1.2346e+05\n 1.5000e+00\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(str(ember::tensor({1234567.0, 100.5}, kFloat64)), "1e+06 *\n 1.2346\n 0.0001\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(str(ember::tensor({-1.0, -2.5}, kFloat32)), "-1.0000\n-2.5000\n[ CPUFloatType{2} ]");
  EXPECT_EQ(str(ember::tensor({1000000.0, 2.0}, kFloat32)), "   1e+06\n       2\n[ CPUFloatType{2} ]");
  EXPECT_EQ(str(ember::tensor({int64_t{10000000000}, int64_t{1}})), " 1.0000e+10\n 1.0000e+00\n[ CPULongType{2} ]");
  EXPECT_EQ(str(ember::tensor({kNaN, 1.5, kInf}, kFloat32)), "    nan\n 1.5000\n    inf\n[ CPUFloatType{3} ]");
  EXPECT_EQ(str(ember::tensor({kNaN}, kFloat32)), "nan\n[ CPUFloatType{1} ]");
  EXPECT_EQ(str(ember::tensor({kInf, 2.0, -kInf}, kFloat32)), "inf\n 2\n-inf\n[ CPUFloatType{3} ]");
  EXPECT_EQ(str(ember::zeros({3})), " 0\n 0\n 0\n[ CPUFloatType{3} ]");
  EXPECT_EQ(str(ember::tensor({-0.0, 1.0}, kFloat32)), "-0\n 1\n[ CPUFloatType{2} ]");
  EXPECT_EQ(str(ember::tensor({-123456.0, 1.0}, kFloat64)), "-123456\n      1\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(str(ember::tensor({-1e-9, 1e3}, kFloat64)), "-1.0000e-09\n 1.0000e+03\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(str(ember::tensor({1e100, 1.0, 1e-100}, kFloat64)),
            " 1.0000e+100\n  1.0000e+00\n 1.0000e-100\n[ CPUDoubleType{3} ]");
  EXPECT_EQ(str(ember::tensor({999999999.0, 1.0}, kFloat64)), "     1e+09\n         1\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(str(ember::tensor({99999.5, 1.0}, kFloat64)), " 99999.5000\n     1.0000\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(str(ember::tensor({-0.5, 0.25}, kFloat64)), "-0.5000\n 0.2500\n[ CPUDoubleType{2} ]");
}

TEST(Print, EveryDtypeNamesItsType) {
  EXPECT_EQ(str(ember::tensor({true, false, true})), " 1\n 0\n 1\n[ CPUBoolType{3} ]");
  EXPECT_EQ(str(ember::tensor({1.5, 2.0}, kFloat16)), " 1.5000\n 2.0000\n[ CPUHalfType{2} ]");
  EXPECT_EQ(str(ember::tensor({1.5, 2.0}, kBFloat16)), " 1.5000\n 2.0000\n[ CPUBFloat16Type{2} ]");
  EXPECT_EQ(str(ember::tensor({1, 255}, kUInt8)), "   1\n 255\n[ CPUByteType{2} ]");
  EXPECT_EQ(str(ember::tensor({-1, 5}, kInt8)), "-1\n 5\n[ CPUCharType{2} ]");
  EXPECT_EQ(str(ember::tensor({-1, 5}, kInt16)), "-1\n 5\n[ CPUShortType{2} ]");
  EXPECT_EQ(str(ember::tensor({-1, 5}, kInt32)), "-1\n 5\n[ CPUIntType{2} ]");
  EXPECT_EQ(str(ember::tensor({int64_t{-100}, int64_t{5}})), "-100\n   5\n[ CPULongType{2} ]");
  EXPECT_EQ(ember::ones({2}).toString(), "CPUFloatType");
  EXPECT_EQ(ember::ones({2}, kInt64).toString(), "CPULongType");
  EXPECT_EQ(ember::ones({2}, kFloat16).toString(), "CPUHalfType");
}

TEST(Print, HigherRanks) {
  EXPECT_EQ(str(ember::arange(24, kFloat32).view({2, 3, 4})),
            "(1,.,.) = \n"
            "   0   1   2   3\n"
            "   4   5   6   7\n"
            "   8   9  10  11\n"
            "\n"
            "(2,.,.) = \n"
            "  12  13  14  15\n"
            "  16  17  18  19\n"
            "  20  21  22  23\n"
            "[ CPUFloatType{2,3,4} ]");
  // The first index varies fastest, as in LibTorch.
  EXPECT_EQ(str(ember::arange(16).view({2, 2, 2, 2})),
            "(1,1,.,.) = \n  0  1\n  2  3\n\n"
            "(2,1,.,.) = \n   8   9\n  10  11\n\n"
            "(1,2,.,.) = \n  4  5\n  6  7\n\n"
            "(2,2,.,.) = \n  12  13\n  14  15\n"
            "[ CPULongType{2,2,2,2} ]");
  EXPECT_EQ(str(ember::ones({1, 2, 1, 2, 2})),
            "(1,1,1,.,.) = \n  1  1\n  1  1\n\n(1,2,1,.,.) = \n  1  1\n  1  1\n[ CPUFloatType{1,2,1,2,2} ]");
  EXPECT_EQ(str(ember::ones({3, 1, 1})),
            "(1,.,.) = \n  1\n\n(2,.,.) = \n  1\n\n(3,.,.) = \n  1\n[ CPUFloatType{3,1,1} ]");
  EXPECT_EQ(str(ember::arange(40, kFloat32).view({2, 1, 20}) / 3),
            "(1,.,.) = \n"
            " Columns 1 to 9  0.0000  0.3333  0.6667  1.0000  1.3333  1.6667  2.0000  2.3333  2.6667\n"
            "\n"
            "Columns 10 to 18  3.0000  3.3333  3.6667  4.0000  4.3333  4.6667  5.0000  5.3333  5.6667\n"
            "\n"
            "Columns 19 to 20  6.0000  6.3333\n"
            "\n"
            "(2,.,.) = \n"
            " Columns 1 to 8   6.6667   7.0000   7.3333   7.6667   8.0000   8.3333   8.6667   9.0000\n"
            "\n"
            "Columns 9 to 16   9.3333   9.6667  10.0000  10.3333  10.6667  11.0000  11.3333  11.6667\n"
            "\n"
            "Columns 17 to 20  12.0000  12.3333  12.6667  13.0000\n"
            "[ CPUFloatType{2,1,20} ]");
  EXPECT_EQ(str(ember::tensor({{{123456.5, 1000.0}, {2000.0, 3000.0}}, {{1.5, 2.0}, {3.0, 4.0}}}, kFloat64)),
            "(1,.,.) = \n 1e+05 *\n  1.2346  0.0100\n   0.0200  0.0300\n\n"
            "(2,.,.) = \n  1.5000  2.0000\n  3.0000  4.0000\n[ CPUDoubleType{2,2,2} ]");
}

TEST(Print, EmptyUndefinedAndStreamState) {
  EXPECT_EQ(str(ember::empty({0})), "[ CPUFloatType{0} ]");
  EXPECT_EQ(str(ember::empty({0, 3})), "[ CPUFloatType{0,3} ]");
  EXPECT_EQ(str(ember::empty({2, 0, 3})), "[ CPUFloatType{2,0,3} ]");
  EXPECT_EQ(str(Tensor()), "[ Tensor (undefined) ]");
  EXPECT_EQ(Tensor().toString(), "UndefinedType");
  // The stream's own format is used where LibTorch uses it, and restored afterwards.
  std::ostringstream os;
  os << std::setprecision(2) << ember::tensor({1.23456, 2.5}, kFloat32) << " after " << 3.14159;
  EXPECT_EQ(os.str(), " 1.2346\n 2.5000\n[ CPUFloatType{2} ] after 3.1");
}
