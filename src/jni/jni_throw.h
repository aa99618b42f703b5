/* SPDX-License-Identifier: MIT */
/* Throwing the Java exceptions GKL's natives throw. */
#ifndef GVK_JNI_THROW_H
#define GVK_JNI_THROW_H

#include <jni.h>

/* Clears any pending exception and throws a new one of class cls ("java/lang/..."). */
static inline void jni_throw(JNIEnv *env, const char *cls, const char *msg)
{
	jclass c;
	if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
	c = (*env)->FindClass(env, cls);
	if (c) (*env)->ThrowNew(env, c, msg);
}

#endif
