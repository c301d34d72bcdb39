// Found only through the project's include path (target_include_directories).
#pragma once
#ifndef SCALE_BLOCK
#error "SCALE_BLOCK comes from the project's compile definitions"
#endif
