import Foundation
import LatchkeyWire
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    @Test("encodes unpadded with - and _, and decodes back, for every length modulo 3")
    func roundTrip() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x3E, 0x3F, 0xFE]
        for count in 0...bytes.count {
            let data = Data(bytes.prefix(count))
            let text = Base64URL.encode(data)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == data)
            #expect(Base64URL.decode(utf8: Array(text.utf8)) == data)
        }
        #expect(Base64URL.encode(Data([0xFB, 0xFF, 0xBF])) == "-_-_")
    }

    @Test("decoding is strict: padding, standard base64's + and /, whitespace and impossible lengths fail")
    func strict() {
        #expect(Base64URL.decode("-_-_") == Data([0xFB, 0xFF, 0xBF]))
        for text in ["+/+/", "YQ==", "YQ=", "Y Q", "YQ\n", "Y", "YWJjZ", "é"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        #expect(Base64URL.decode("") == Data())
    }
}
