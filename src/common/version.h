/* version.h — fpdiv's version: in --version, in every case file and every environment record. */
#ifndef FPD_VERSION_H
#define FPD_VERSION_H

#define FPD_VERSION "0.1.0"

#endif
