/// The symbol while it is built: every module's colour, and which modules belong to function
/// patterns (finder, separator, timing and alignment patterns, format and version information),
/// which neither carry data nor take the mask.
struct ModuleGrid {
    let version: Int
    /// Modules per side: 17 + 4 × version.
    let size: Int
    /// Row by row, `true` for dark.
    private(set) var modules: [Bool]
    /// Row by row, `true` for a function module.
    private(set) var isFunction: [Bool]

    init(version: Int) {
        precondition(SymbolCapacity.versions.contains(version))
        self.version = version
        self.size = 17 + 4 * version
        self.modules = Array(repeating: false, count: size * size)
        self.isFunction = Array(repeating: false, count: size * size)
    }

    /// Whether the module at column `x`, row `y` is dark.
    subscript(x: Int, y: Int) -> Bool {
        modules[y * size + x]
    }

    /// Sets a module of a function pattern.
    mutating func setFunctionModule(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// Sets a data module (one not of a function pattern).
    mutating func setDataModule(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
    }

    /// Direct access to the modules (row-major) for a pass over all of them.
    mutating func withUnsafeMutableModules<Result>(_ body: (UnsafeMutableBufferPointer<Bool>) throws -> Result) rethrows -> Result {
        try modules.withUnsafeMutableBufferPointer { try body($0) }
    }
}
