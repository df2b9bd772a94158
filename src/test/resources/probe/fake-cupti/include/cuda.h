/* A stand-in for CUDA's driver header (see cupti.h beside it): the census needs none of it. */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H
#endif
