/// Systematic Reed–Solomon encoding over ``GaloisField``: the error correction codewords of a
/// block are the remainder of the data polynomial times x^degree divided by the generator
/// polynomial (x − α⁰)(x − α¹)…(x − α^(degree − 1)) (ISO/IEC 18004 section 7.5.2).
struct ReedSolomonEncoder {
    /// The generator's coefficients below the leading 1, highest degree first.
    let generator: [UInt8]
    /// The logarithms of ``generator``'s coefficients (0 where a coefficient is 0, which is skipped).
    private let generatorLogarithms: [Int]

    /// An encoder producing `degree` error correction codewords per block.
    init(degree: Int) {
        precondition(degree >= 1 && degree <= 254)
        // Coefficients highest degree first, starting from the polynomial 1.
        var polynomial: [UInt8] = [1]
        for root in 0..<degree {
            // Multiply by (x − αʳᵒᵒᵗ); subtraction is addition (XOR) in GF(2⁸).
            let factor = GaloisField.exponents[root]
            var product = [UInt8](repeating: 0, count: polynomial.count + 1)
            for (index, coefficient) in polynomial.enumerated() {
                product[index] ^= coefficient
                product[index + 1] ^= GaloisField.multiply(coefficient, factor)
            }
            polynomial = product
        }
        generator = Array(polynomial.dropFirst())
        generatorLogarithms = generator.map { GaloisField.logarithms[Int($0)] }
    }

    /// The error correction codewords for `data`.
    func remainder<Data: Collection<UInt8>>(of data: Data) -> [UInt8] {
        let degree = generator.count
        var remainder = [UInt8](repeating: 0, count: degree)
        remainder.withUnsafeMutableBufferPointer { remainder in
            generatorLogarithms.withUnsafeBufferPointer { generatorLogarithms in
                generator.withUnsafeBufferPointer { generator in
                    GaloisField.exponents.withUnsafeBufferPointer { exponents in
                        for byte in data {
                            // Shift the remainder one place (× x) and subtract the generator
                            // times the coefficient that moved out.
                            let factor = byte ^ remainder[0]
                            for index in 0..<degree - 1 { remainder[index] = remainder[index + 1] }
                            remainder[degree - 1] = 0
                            guard factor != 0 else { continue }
                            let factorLog = GaloisField.logarithms[Int(factor)]
                            for index in 0..<degree where generator[index] != 0 {
                                remainder[index] ^= exponents[generatorLogarithms[index] + factorLog]
                            }
                        }
                    }
                }
            }
        }
        return remainder
    }
}
