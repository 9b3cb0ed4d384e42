"""Checks QR codes from LatchkeyQRCode with independent software.

Usage: decode_qr.py CASES.json

CASES.json (written by DecoderRoundTripTests.swift) is a list of objects with the encoded
text, the version, level and mask the Swift encoder chose, its module matrix ("1" = dark), and
its SVG and terminal renderings. For every case:

1. zxing-cpp (a C++ decoder with no code in common with the encoder) reads an image drawn from
   the matrix, and one drawn from each rendering (SVG path, coloured terminal text, both plain
   terminal styles on the terminal colours they are meant for); the bytes must match, and for
   the matrix the version, level and mask the decoder read.
   An empty text is not decoded: zxing-cpp reports no empty symbols (not even segno's).
2. When segno (an independent Python encoder) is importable, it encodes the same bytes at the
   same version, level and mask; the matrices must be identical. Whether segno's own mask
   choice agrees is counted, not required (encoders read the penalty rule 3 differently).

   segno 1.6.6 deviates from ISO/IEC 18004 section 7.4.10 in one place: when the data and the
   terminator end on a codeword boundary (always so in byte mode with a full terminator), it
   still adds 8 "padding" 0 bits, a whole 0x00 codeword before the pad codewords 0xEC 0x11.
   The standard adds padding bits only to reach a boundary; decoders ignore everything after
   the terminator either way. The comparison corrects that one step in segno.

Prints one line per failure and a summary line; exits 1 on any failure.
"""

import json
import re
import sys

import zxingcpp

try:
    import segno
    from segno import encoder as segno_encoder
except ImportError:  # the matrix comparison is skipped, and the summary says so
    segno = None


def padding_to_codeword_boundary(buff, version, length):
    """ISO/IEC 18004 7.4.10: 0 bits up to the next codeword boundary, none when already there."""
    buff.extend([0] * ((8 - length % 8) % 8))


if segno is not None:
    segno_encoder.write_padding_bits = padding_to_codeword_boundary

SCALE = 4
LEVELS = {"low": "L", "medium": "M", "quartile": "Q", "high": "H"}
COLORED_START = "\x1b[38;5;16;48;5;231m"
RESET = "\x1b[0m"
HALVES = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}


def image(dark_rows, margin):
    """A grayscale image (8 bits a pixel, as zxing-cpp takes a buffer): dark modules black, the
    rest white, with a light margin of `margin` modules, SCALE pixels a module."""
    width = len(dark_rows[0]) + 2 * margin
    light_row = bytes([255]) * (width * SCALE)
    pixels = bytearray(light_row * (margin * SCALE))
    for row in dark_rows:
        line = bytes([255]) * (margin * SCALE)
        line += b"".join(bytes([0 if dark else 255]) * SCALE for dark in row)
        line += bytes([255]) * (margin * SCALE)
        pixels += line * SCALE
    pixels += light_row * (margin * SCALE)
    height = len(pixels) // (width * SCALE)
    return memoryview(bytes(pixels)).cast("B", (height, width * SCALE))


def from_svg(svg):
    side = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))
    path = re.search(r'<path fill="#000" d="([^"]*)"', svg).group(1)
    rows = [[False] * side for _ in range(side)]
    for x, y, w, back in re.findall(r"M(\d+) (\d+)h(\d+)v1h-(\d+)z", path):
        assert w == back, "a rectangle that does not close"
        for column in range(int(x), int(x) + int(w)):
            rows[int(y)][column] = True
    assert "".join(re.findall(r"M\d+ \d+h\d+v1h-\d+z", path)) == path, "path commands other than rectangles"
    return rows


def from_terminal(text, drawn_is_dark, colored):
    """The module rows a terminal shows: drawn half-cells in the text colour, the rest in the
    background colour; `drawn_is_dark` says which of the two is dark."""
    rows = []
    for line in text.split("\n")[:-1]:
        if colored:
            assert line.startswith(COLORED_START) and line.endswith(RESET), "colours not set and reset on a line"
            line = line[len(COLORED_START):-len(RESET)]
        cells = [HALVES[c] for c in line]
        for half in (0, 1):
            rows.append([bool(cell[half]) == drawn_is_dark for cell in cells])
    return rows


def decode(pixels):
    results = zxingcpp.read_barcodes(pixels, formats=zxingcpp.BarcodeFormat.QRCode, try_invert=False)
    return results[0] if len(results) == 1 else None


def main():
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    failures = []
    decoded = 0
    matrices_equal = 0
    masks_agree = 0
    for case in cases:
        name = case["name"]
        expected = case["text"].encode("utf-8")
        matrix = [[c == "1" for c in row] for row in case["matrix"]]
        if len(matrix) != 17 + 4 * case["version"]:
            failures.append(f"{name}: {len(matrix)} rows for version {case['version']}")
            continue
        renderings = {
            "matrix": image(matrix, 4),
            "svg": image(from_svg(case["svg"]), 0),
            # The coloured text draws black blocks on white whatever the terminal's colours.
            "terminal (coloured)": image(from_terminal(case["terminal"], True, True), 0),
            # Light modules as blocks in a dark theme's light text colour.
            "terminal (light blocks, dark theme)": image(from_terminal(case["terminalLightBlocks"], False, False), 0),
            # Dark modules as blocks in a light theme's dark text colour.
            "terminal (dark blocks, light theme)": image(from_terminal(case["terminalDarkBlocks"], True, False), 0),
        }
        for label, pixels in renderings.items():
            if not expected:
                break
            result = decode(pixels)
            if result is None:
                failures.append(f"{name}: {label}: zxing-cpp found no QR code")
                continue
            if result.bytes != expected:
                failures.append(f"{name}: {label}: zxing-cpp read {result.bytes[:60]!r}…, not the encoded bytes")
                continue
            if label == "matrix":
                # What the decoder read from the format and version information.
                read = (str(result.ec_level), str(result.extra.get("Version")), result.extra.get("DataMask"))
                encoded = (LEVELS[case["correction"]], str(case["version"]), case["mask"])
                if read != encoded:
                    failures.append(f"{name}: zxing-cpp read level, version, mask {read}, encoded {encoded}")
                    continue
            decoded += 1

        if segno is not None:
            level = LEVELS[case["correction"]].lower()
            reference = segno.make_qr(expected, error=level, version=case["version"], mask=case["mask"],
                                      mode="byte", boost_error=False)
            reference_rows = [[bool(v) for v in row] for row in reference.matrix]
            if reference_rows == matrix:
                matrices_equal += 1
            else:
                differing = sum(a != b for r1, r2 in zip(reference_rows, matrix) for a, b in zip(r1, r2))
                failures.append(f"{name}: segno's matrix for version {case['version']}-{level.upper()} mask "
                                f"{case['mask']} differs in {differing} modules")
            own = segno.make_qr(expected, error=level, mode="byte", boost_error=False)
            if own.version == case["version"] and own.mask == case["mask"]:
                masks_agree += 1
            elif own.version != case["version"]:
                failures.append(f"{name}: segno chose version {own.version}, the encoder {case['version']}")

    for failure in failures:
        print(f"FAILED: {failure}")
    nonempty = sum(1 for case in cases if case["text"])
    print(f"zxing-cpp: decoded {decoded} of {5 * nonempty} images ({nonempty} non-empty codes × matrix, SVG, "
          f"3 terminal styles), each to the encoded bytes")
    if segno is None:
        print("segno not installed: the matrix comparison with an independent encoder was skipped")
    else:
        print(f"segno {segno.__version__}: {matrices_equal} of {len(cases)} matrices identical at the same "
              f"version, level and mask (its padding step corrected); segno's own mask choice agreed in "
              f"{masks_agree} of {len(cases)}")
    failed = len({failure.split(":")[0] for failure in failures})
    print(f"decode_qr: {len(cases)} codes checked, {failed} with failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
