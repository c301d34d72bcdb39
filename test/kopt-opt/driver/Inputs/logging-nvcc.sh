#!/bin/sh
# nvcc that writes its arguments to $NVCC_LOG, then runs $REAL_NVCC.
echo "$*" >> "$NVCC_LOG"
exec "$REAL_NVCC" "$@"
