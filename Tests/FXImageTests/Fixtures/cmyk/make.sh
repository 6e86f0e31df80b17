#!/usr/bin/env bash
# How the CMYK JPEGs here were made (16×16, one colour, no ICC profile), by
# the tools whose reading fxc follows: Pillow 13.0.0, ImageMagick 6.9.11-60
# and libvips 8.14.1 (Debian 12). Each writes Adobe's inverted CMYK with an
# APP14 marker (*-app14.jpg); *-noapp14.jpg is the same file with the APP14
# segment cut out (ImageMagick's is YCCK, which without the marker libjpeg
# reads as CMYK). Not run by the tests; kept to say where the bytes came from.
set -euo pipefail
python3 -c "from PIL import Image; Image.new('CMYK', (16, 16), (20, 200, 60, 10)).save('pil-app14.jpg', quality=95)"
convert -size 16x16 'xc:cmyk(8%,78%,24%,4%)' -colorspace CMYK im-app14.jpg
vips copy pil-app14.jpg vips-app14.jpg
for f in pil im vips; do
  python3 - "$f-app14.jpg" "$f-noapp14.jpg" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
out, i = bytearray(d[:2]), 2
while i < len(d):
    marker = d[i + 1]
    if marker == 0xDA:
        out += d[i:]
        break
    length = (d[i + 2] << 8) | d[i + 3]
    segment = d[i:i + 2 + length]
    if not (marker == 0xEE and segment[4:9] == b'Adobe'):
        out += segment
    i += 2 + length
open(sys.argv[2], 'wb').write(out)
PY
done
