#include "CJPEG.h"
