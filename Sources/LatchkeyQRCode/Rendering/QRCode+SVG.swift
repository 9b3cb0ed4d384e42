extension QRCode {
    /// The symbol as an SVG document: a white background and one path of the dark modules.
    ///
    /// The view box counts modules (the symbol plus the quiet zone on every side) and the
    /// `width` and `height` attributes are that times `moduleSize`, so the image scales without
    /// blurring; `shape-rendering="crispEdges"` keeps module edges sharp when the scale is not a
    /// whole number. Horizontal runs of dark modules are single rectangles in the path.
    ///
    /// - Parameters:
    ///   - moduleSize: The side of one module in the document's user units (pixels in a
    ///     browser), at least 1.
    ///   - quietZone: The light margin around the symbol, in modules. The standard asks for 4;
    ///     less makes some scanners fail.
    /// - Returns: The SVG markup, without an XML declaration.
    public func svg(moduleSize: Int = 4, quietZone: Int = 4) -> String {
        let margin = max(quietZone, 0)
        let side = size + 2 * margin
        let pixels = side * max(moduleSize, 1)
        var path: [UInt8] = []
        path.reserveCapacity(size * size * 2)
        func append(_ number: Int) {
            if number >= 10 { append(number / 10) }
            path.append(UInt8(ascii: "0") + UInt8(number % 10))
        }
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && self[x, y] { x += 1 }
                // M<x> <y>h<width>v1h-<width>z
                path.append(UInt8(ascii: "M"))
                append(start + margin)
                path.append(UInt8(ascii: " "))
                append(y + margin)
                path.append(UInt8(ascii: "h"))
                append(x - start)
                path.append(contentsOf: "v1h-".utf8)
                append(x - start)
                path.append(UInt8(ascii: "z"))
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path fill="#000" d="\(String(decoding: path, as: UTF8.self))"/></svg>
            """
    }
}
